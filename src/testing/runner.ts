/**
 * The test runner the conformance suites register their tests with, found when a suite runs
 * (never at import, so importing `cortexis/testing` needs no test framework):
 *
 * 1. the runner given to {@link useTestRunner};
 * 2. vitest (its module, which vitest publishes to the test file's global scope; no `globals`
 *    setting needed);
 * 3. global `describe` / `it` / `beforeEach` / `afterEach` (jest, vitest with `globals: true`,
 *    Bun, mocha);
 * 4. `node:test` (its `describe` / `it` / hooks, loaded with `process.getBuiltinModule`).
 *
 * Suite files import `describe`, `it`, `beforeEach`, `afterEach` and `expect` from here instead
 * of from a framework: a new case file keeps the same import line.
 */
import { ConfigError } from '../errors/index.js';
import { expect } from './expect.js';

export { expect };

/** A test body or hook; may return a promise. */
export type TestBody = () => unknown;

/**
 * What the suites need of a test runner: vitest's, jest's and `node:test`'s own functions fit
 * as they are (`useTestRunner({ describe, it, beforeEach, afterEach })`).
 */
export interface TestRunner {
  /** Groups tests under a title. */
  readonly describe: (title: string, body: () => void) => unknown;
  /** Registers a test; `it.skip`, when present, registers a skipped one. */
  readonly it: ((title: string, body: TestBody) => unknown) & {
    readonly skip?: ((title: string, body: TestBody) => unknown) | undefined;
  };
  /** Runs before each test of the enclosing `describe`. */
  readonly beforeEach: (hook: TestBody) => unknown;
  /** Runs after each test of the enclosing `describe`. */
  readonly afterEach: (hook: TestBody) => unknown;
}

let chosen: TestRunner | undefined;

/**
 * Sets the runner the conformance suites register with (`undefined`: detect it again). Only
 * needed for a runner that is not detected (see the module comment).
 */
export function useTestRunner(runner: TestRunner | undefined): void {
  if (runner !== undefined && !isRunner(runner)) {
    throw new ConfigError('useTestRunner needs describe, it, beforeEach and afterEach functions', [
      { path: 'runner', message: 'describe, it, beforeEach and afterEach must be functions' },
    ]);
  }
  chosen = runner;
}

function isRunner(candidate: unknown): candidate is TestRunner {
  if (typeof candidate !== 'object' && typeof candidate !== 'function') return false;
  if (candidate === null) return false;
  const record = candidate as Record<string, unknown>;
  return ['describe', 'it', 'beforeEach', 'afterEach'].every(
    (name) => typeof record[name] === 'function',
  );
}

/** The runner in use, detected in the order of the module comment. */
export function currentRunner(): TestRunner {
  if (chosen) return chosen;
  const scope = globalThis as Record<string, unknown>;
  if (isRunner(scope['__vitest_index__'])) return scope['__vitest_index__'];
  if (isRunner(scope)) return scope;
  const nodeProcess = scope['process'] as
    { getBuiltinModule?: (name: string) => unknown } | undefined;
  const nodeTest = nodeProcess?.getBuiltinModule?.('node:test');
  if (isRunner(nodeTest)) return nodeTest;
  throw new ConfigError(
    'No test runner found for the conformance suite: run it under vitest, jest or node:test, ' +
      'or call useTestRunner({ describe, it, beforeEach, afterEach }) first',
    [{ path: 'runner', message: 'no describe/it/beforeEach/afterEach found' }],
  );
}

// Bodies are wrapped in zero-argument functions: node:test passes a context (and treats a
// body of two parameters as callback-style), vitest reads the first parameter for fixtures.
const call = (body: TestBody) => () => body();

/** Registers a group of tests with the current runner. */
export function describe(title: string, body: () => void): void {
  currentRunner().describe(title, body);
}

/** Registers a test with the current runner. */
export const it = Object.assign(
  (title: string, body: TestBody): void => {
    currentRunner().it(title, call(body));
  },
  {
    /** Registers a skipped test (the runner's `it.skip`, else a test that does nothing). */
    skip(title: string, body: TestBody): void {
      const runner = currentRunner();
      if (typeof runner.it.skip === 'function') runner.it.skip(title, call(body));
      else runner.it(title, () => undefined);
    },
    /** `it.skipIf(condition)(title, body)`: skipped when `condition` is truthy. */
    skipIf(condition: unknown): (title: string, body: TestBody) => void {
      return (title, body) => (condition ? it.skip(title, body) : it(title, body));
    },
  },
);

/** Runs `hook` before each test of the enclosing `describe`. */
export function beforeEach(hook: TestBody): void {
  currentRunner().beforeEach(call(hook));
}

/** Runs `hook` after each test of the enclosing `describe`. */
export function afterEach(hook: TestBody): void {
  currentRunner().afterEach(call(hook));
}
