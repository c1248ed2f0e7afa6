import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Options } from 'tsup';

/**
 * One entry per subpath export. `test/package/exports.test.ts` fails when this list and
 * `package.json#exports` drift apart.
 */
export const entries = {
  index: 'src/index.ts',
  testing: 'src/testing/index.ts',
  http: 'src/http/index.ts',
  openai: 'src/adapters/openai/index.ts',
  anthropic: 'src/adapters/anthropic/index.ts',
  ollama: 'src/adapters/ollama/index.ts',
  sqlite: 'src/adapters/sqlite/index.ts',
  postgres: 'src/adapters/postgres/index.ts',
  redis: 'src/adapters/redis/index.ts',
  lancedb: 'src/adapters/lancedb/index.ts',
  usearch: 'src/adapters/usearch/index.ts',
  loaders: 'src/loaders/index.ts',
  providers: 'src/adapters/providers/index.ts',
  langchain: 'src/integrations/langchain/index.ts',
  opentelemetry: 'src/integrations/opentelemetry/index.ts',
  mcp: 'src/integrations/mcp/index.ts',
  rerank: 'src/adapters/rerank/index.ts',
} as const;

/**
 * The BPE tables (about 1 and 2 MB) are built once, as ES modules of their own in
 * `dist/encodings/`, and every build (ESM, CommonJS, CLI) imports them from there at run time
 * with a specifier bundlers do not follow (`src/adapters/tokenizer/gpt-tokenizer.ts`): no
 * bundle inlines them, ours or a user's.
 */
const encodingTables = {
  'encodings/cl100k_base': 'src/adapters/tokenizer/encodings/cl100k_base.ts',
  'encodings/o200k_base': 'src/adapters/tokenizer/encodings/o200k_base.ts',
} as const;

/**
 * The loaders' parse worker (`src/loaders/pool.ts` starts it from `./loaders-worker.js`, next
 * to the code), the ingest worker pool (`src/engine/documents.ts` loads it from
 * `./ingest-pool.js`, in Node only) and its worker (`./ingest-worker.js`): ES modules of their
 * own, not subpath exports.
 */
export const workerEntries = {
  'loaders-worker': 'src/loaders/parse-worker.ts',
  'ingest-pool': 'src/engine/ingest-pool.ts',
  'ingest-worker': 'src/engine/ingest-worker.ts',
} as const;

/**
 * Dependencies bundled into the build instead of installed: their modules, loaded one by one,
 * made up most of a cold `import('cortexis')` (bundling zod/mini alone cut it by a third), and
 * of the installed size (@orama ships every language; six are used). zod stays a dependency
 * for the declarations: the exported schemas are zod types.
 */
const bundled = ['zod', 'eventemitter3', '@orama/stemmers', '@orama/stopwords'];

/** Each bundled package's licence, kept as a legal comment at the end of the files holding it. */
const licenceNotices = {
  name: 'licence-notices',
  setup(build) {
    build.initialOptions.legalComments = 'eof';
    const packages = bundled.map((name) => {
      // Real paths, as esbuild reports them (node_modules may be a link).
      const root = realpathSync(fileURLToPath(new URL(`./node_modules/${name}`, import.meta.url)));
      const file = ['LICENSE', 'LICENSE.md'].find((candidate) => {
        try {
          return readFileSync(join(root, candidate)).length > 0;
        } catch {
          return false;
        }
      });
      if (!file) throw new Error(`${name}: no licence file to keep`);
      const text = readFileSync(join(root, file), 'utf8').replaceAll('*/', '* /').trim();
      return { root: `${root}/`, notice: `/*! ${name}\n${text}\n*/\n` };
    });
    build.onLoad({ filter: /\.(c|m)?js$/ }, (args) => {
      const found = packages.find((entry) => args.path.startsWith(entry.root));
      if (!found) return undefined;
      return { contents: found.notice + readFileSync(args.path, 'utf8'), loader: 'js' };
    });
  },
} satisfies NonNullable<Options['esbuildPlugins']>[number];

/**
 * Source maps point at the published lines without embedding the sources (`sourcesContent`):
 * they made up most of the tarball. `test/package/consumer-types.test.ts` checks it.
 */
const sourceMaps = {
  sourcemap: true,
  esbuildOptions(options) {
    options.sourcesContent = false;
  },
} satisfies Options;

export default defineConfig([
  {
    entry: entries,
    format: ['esm', 'cjs'],
    dts: true,
    ...sourceMaps,
    clean: true,
    target: 'es2022',
    splitting: true,
    treeshake: true,
    esbuildPlugins: [licenceNotices],
    noExternal: bundled,
    external: [
      'better-sqlite3',
      'pg',
      'redis',
      '@lancedb/lancedb',
      'apache-arrow',
      'usearch',
      'unpdf',
      'mammoth',
      '@langchain/core',
      '@opentelemetry/api',
      '@modelcontextprotocol/sdk',
    ],
  },
  {
    entry: workerEntries,
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    ...sourceMaps,
    esbuildPlugins: [licenceNotices],
    noExternal: bundled,
    external: ['unpdf', 'mammoth'],
  },
  {
    entry: encodingTables,
    format: ['esm'],
    target: 'es2022',
  },
  {
    entry: { cli: 'src/cli/main.ts' },
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    ...sourceMaps,
    // The commands' modules are chunks of their own (`cli-*.js`), loaded when a command needs
    // them: `--version` and `--help` load none, `ask` on an indexed folder no document parser.
    splitting: true,
    esbuildOptions(options) {
      sourceMaps.esbuildOptions(options);
      options.chunkNames = 'cli-[name]-[hash]';
    },
    esbuildPlugins: [licenceNotices],
    noExternal: bundled,
    banner: { js: '#!/usr/bin/env node' },
  },
]);
