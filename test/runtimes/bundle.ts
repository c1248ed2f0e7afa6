/**
 * Bundles a small entry that imports `cortexis` / `cortexis/<subpath>` by name, from the
 * sources, for the browser/worker platform, so it runs in runtimes other than Node (an edge
 * runtime, Deno, Bun). A Node built-in (`node:…`, or a bare `fs`, `path`, …) imported by
 * anything in the bundle fails the build with the importer named: the core entry and the
 * entries bundled here must stay runtime-neutral.
 */
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Source entry of each public subpath the runtime tests import. */
const SUBPATHS: Record<string, string> = {
  cortexis: 'src/index.ts',
  'cortexis/http': 'src/http/index.ts',
};

/** Resolves `cortexis` and `cortexis/http` to the sources, as the test config does. */
const cortexisSources: Plugin = {
  name: 'cortexis-sources',
  setup(plugin) {
    plugin.onResolve({ filter: /^cortexis(\/[a-z-]+)?$/ }, ({ path }) => {
      const entry = SUBPATHS[path];
      return entry
        ? { path: `${root}${entry}` }
        : { errors: [{ text: `no source entry for ${path} in test/runtimes/bundle.ts` }] };
    });
  },
};

const builtins = new Set(builtinModules);

/** Fails the build on any Node built-in, naming who imports it. */
const noNodeBuiltins: Plugin = {
  name: 'no-node-builtins',
  setup(plugin) {
    plugin.onResolve({ filter: /^[a-z_:/]+$/ }, ({ path, importer }) => {
      if (!path.startsWith('node:') && !builtins.has(path.split('/')[0]!)) return undefined;
      const from = importer.startsWith(root) ? importer.slice(root.length) : importer;
      return { errors: [{ text: `Node built-in '${path}' imported by ${from}` }] };
    });
  },
};

/** A bundle and the source files in it (paths relative to the repository). */
export interface RuntimeBundle {
  /** The bundled JavaScript. */
  readonly code: string;
  /** Every file bundled, relative to the repository root. */
  readonly inputs: readonly string[];
}

/** What to bundle: TypeScript source text, or a file of the repository (`examples/…`). */
export type BundleEntry = { readonly source: string } | { readonly file: string };

/**
 * Bundles an entry (TypeScript, importing `cortexis` by name) into one file with no imports:
 * `iife` for a script (an edge runtime's `evaluate`), `esm` for a module (Deno, Bun).
 */
export async function bundleForRuntime(
  entry: BundleEntry,
  format: 'iife' | 'esm',
): Promise<RuntimeBundle> {
  const result = await build({
    ...('source' in entry
      ? {
          stdin: {
            contents: entry.source,
            loader: 'ts' as const,
            resolveDir: root,
            sourcefile: 'entry.ts',
          },
        }
      : { entryPoints: [`${root}${entry.file}`] }),
    bundle: true,
    platform: 'browser',
    format,
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [cortexisSources, noNodeBuiltins],
  });
  return {
    code: result.outputFiles[0]!.text,
    inputs: Object.keys(result.metafile.inputs),
  };
}
