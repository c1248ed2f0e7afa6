/**
 * The one way cortexis loads an optional peer dependency (`pg`, `better-sqlite3`,
 * `@lancedb/lancedb`, `apache-arrow`, `usearch`, `unpdf`, `mammoth`) on demand: a setting may inject the
 * module or a function loading it; otherwise it is imported lazily, on first use, so nothing
 * loads it before it is needed; when the import fails, a `ConfigError` names the package,
 * the install command and the setting that injects it.
 */
import { ConfigError } from '../errors/index.js';

/** A library given by the caller: the module, or a function loading it. */
export type LibrarySource<T> = T | (() => Promise<T>);

/** What {@link importOptional} loads, from where, and what its error says. */
export interface OptionalImport<T> {
  /** The package as installed, e.g. `pg`; named in the error. */
  readonly name: string;
  /** Imports the package, with a literal specifier bundlers can see: `() => import('pg')`. */
  readonly load: () => Promise<unknown>;
  /** The setting's value: the library, a function loading it, or `undefined`/`null` to import it. */
  readonly injected?: LibrarySource<T> | undefined;
  /** Who needs the package, the error's first words, e.g. `cortexis/postgres`. */
  readonly neededBy: string;
  /** What for, after the package name in the error, e.g. `for PDF files` (default: nothing). */
  readonly purpose?: string | undefined;
  /** The install command in the error (default `npm install <name>`). */
  readonly install?: string | undefined;
  /** The setting that injects the library: the path of the error's issue (default `library`). */
  readonly setting?: string | undefined;
  /** The library is a class: an injected function with a `prototype` is it, not its loader. */
  readonly isClass?: boolean | undefined;
  /**
   * A function the library exports: the imported module is the library when it has it, else
   * its `default` (default: the module's `default` when it has one, else the module).
   */
  readonly exportName?: string | undefined;
  /** An injected loader that fails throws the same `ConfigError` (default: its own error). */
  readonly wrapInjected?: boolean | undefined;
}

/** The library inside an imported module (a CommonJS module's namespace has it as `default`). */
function libraryOf<T>(module: unknown, exportName: string | undefined): T {
  const namespace = module as { default?: T } & Record<string, unknown>;
  if (exportName === undefined) return namespace.default ?? (namespace as T);
  return typeof namespace[exportName] === 'function' ? (namespace as T) : namespace.default!;
}

/**
 * Returns the injected library, or calls the injected loader, or imports the package; when it
 * cannot be imported, throws a `ConfigError` naming the package, the install command and the
 * setting.
 *
 * @example
 * ```ts
 * const pg = await importOptional<PgLibrary>({
 *   name: 'pg',
 *   load: () => import('pg'),
 *   injected: settings.library,
 *   neededBy: 'cortexis/postgres',
 * });
 * ```
 */
export async function importOptional<T>(request: OptionalImport<T>): Promise<T> {
  const { name, injected, setting = 'library' } = request;
  const isLoader =
    typeof injected === 'function' &&
    !(request.isClass === true && injected.prototype !== undefined);
  if (injected != null && !isLoader) return injected as T;
  try {
    if (isLoader) return await (injected as () => Promise<T>)();
    return libraryOf<T>(await request.load(), request.exportName);
  } catch (error) {
    if (isLoader && request.wrapInjected !== true) throw error;
    const purpose = request.purpose === undefined ? '' : ` ${request.purpose}`;
    throw new ConfigError(
      `${request.neededBy} needs ${name}${purpose}: ${request.install ?? `npm install ${name}`}`,
      [{ path: setting, message: `${name} could not be imported` }],
      { cause: error },
    );
  }
}
