import { availableParallelism } from 'node:os';
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
    // The CLI, bundled from the sources once per run for the tests that spawn it.
    globalSetup: ['./test/setup/cli-bundle.ts'],
    // Two workers at least: vitest's default (one fewer than the cores) leaves a 2-core machine
    // one worker, with the other core idle while a test waits on a child process, a socket or a
    // timer. Measured on the 2-core CI machine: the suite took 570 s with two workers at load
    // 7–10 against 636 s with one on a quiet machine (docs/benchmarks.md, "CI time").
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
