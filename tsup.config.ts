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
  loaders: 'src/loaders/index.ts',
  providers: 'src/adapters/providers/index.ts',
  langchain: 'src/integrations/langchain/index.ts',
  opentelemetry: 'src/integrations/opentelemetry/index.ts',
  rerank: 'src/adapters/rerank/index.ts',
} as const;

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
    external: [
      'vitest',
      'better-sqlite3',
      'pg',
      'redis',
      '@lancedb/lancedb',
      'apache-arrow',
      'unpdf',
      'mammoth',
      '@langchain/core',
      '@opentelemetry/api',
    ],
  },
  {
    entry: { cli: 'src/cli/main.ts' },
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    ...sourceMaps,
    banner: { js: '#!/usr/bin/env node' },
  },
]);
