import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { entries } from './tsup.config.js';

export default defineConfig({
  resolve: {
    // Tests and examples import the package by name (`cortexis`, `cortexis/http`, …), resolved
    // to the sources of the same entries tsup builds.
    alias: Object.entries(entries).map(([entry, source]) => ({
      find: new RegExp(`^cortexis${entry === 'index' ? '' : `/${entry}`}$`),
      replacement: fileURLToPath(new URL(`./${source}`, import.meta.url)),
    })),
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
