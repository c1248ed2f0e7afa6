import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Tests and examples import the package by name, resolved to the sources.
    alias: [
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
    reporters: ['default', './test/summary-reporter.ts'],
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
