import { ConfigError } from '../errors/index.js';

/** A library given by the caller: the module, or a function loading it. */
export type LibrarySource<T> = T | (() => Promise<T>);

/**
 * Imports an optional peer dependency; when it is not installed, a `ConfigError` names the
 * package to install and the file type that needs it.
 */
export async function importOptional<T>(
  name: string,
  purpose: string,
  load: () => Promise<unknown>,
  injected?: LibrarySource<T>,
): Promise<T> {
  if (injected !== undefined) {
    return typeof injected === 'function' ? (injected as () => Promise<T>)() : injected;
  }
  try {
    const module = (await load()) as { default?: T } & T;
    return module.default ?? module;
  } catch (error) {
    throw new ConfigError(
      `cortexis/loaders needs ${name} for ${purpose}: npm install ${name}`,
      [{ path: name, message: `${name} could not be imported` }],
      { cause: error },
    );
  }
}
