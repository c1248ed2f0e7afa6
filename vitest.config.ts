import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Tests and examples import the package by name, resolved to the sources.
    alias: [
      ...[
        'http',
        'loaders',
        'openai',
        'anthropic',
        'ollama',
        'sqlite',
        'postgres',
        'redis',
        'lancedb',
      ].map((name) => ({
        find: new RegExp(`^cortexis/${name}$`),
        replacement: fileURLToPath(
          new URL(
            name === 'http' || name === 'loaders'
              ? `./src/${name}/index.ts`
              : `./src/adapters/${name}/index.ts`,
            import.meta.url,
          ),
        ),
      })),
      {
        find: /^cortexis\/testing$/,
        replacement: fileURLToPath(new URL('./src/testing/index.ts', import.meta.url)),
      },
      {
        find: /^cortexis$/,
        replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)),
      },
    ],
  },
  test: {
    // Tests never reach a real provider, whatever the developer's shell exports.
    env: { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', OLLAMA_HOST: '', OPENAI_BASE_URL: '' },
    reporters: ['default', './test/summary-reporter.ts'],
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
