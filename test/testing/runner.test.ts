import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/index.js';
import * as runner from '../../src/testing/runner.js';
import { testRateLimiter } from '../../src/testing/index.js';
import { createMemoryRateLimiter } from '../../src/adapters/memory/rate-limiter.js';

/** A runner that records what the suites register, and runs nothing. */
function recordingRunner() {
  const registered: string[] = [];
  const bodies: Array<() => unknown> = [];
  const it = Object.assign(
    (title: string, body: () => unknown) => {
      registered.push(`it ${title}`);
      bodies.push(body);
    },
    { skip: (title: string) => registered.push(`skip ${title}`) },
  );
  return {
    registered,
    bodies,
    runner: {
      describe: (title: string, body: () => void) => {
        registered.push(`describe ${title}`);
        body();
      },
      it,
      beforeEach: () => registered.push('beforeEach'),
      afterEach: () => registered.push('afterEach'),
    },
  };
}

describe('the conformance suites’ runner', () => {
  afterEach(() => runner.useTestRunner(undefined));

  it('detects vitest without its globals', () => {
    expect((globalThis as Record<string, unknown>)['describe']).toBeUndefined();
    const found = runner.currentRunner();
    expect(found.describe).toBe(describe);
  });

  it('registers a whole suite with the runner given to useTestRunner, skips by reason', () => {
    const recorded = recordingRunner();
    runner.useTestRunner(recorded.runner);
    testRateLimiter({
      title: 'recorded',
      create: (limits) => createMemoryRateLimiter(limits),
      skip: { flood: 'no flood detection here' },
    });
    expect(recorded.registered[0]).toBe('describe recorded');
    expect(recorded.registered.filter((line) => line.startsWith('it ')).length).toBeGreaterThan(3);
    expect(recorded.registered.filter((line) => line.startsWith('skip ')).length).toBe(2);
    expect(
      recorded.registered.some((line) => line.includes('[skipped: no flood detection here]')),
    ).toBe(true);
  });

  it('wraps bodies so a runner passing a context or callback sees no parameters', async () => {
    const recorded = recordingRunner();
    runner.useTestRunner(recorded.runner);
    let ran = 0;
    runner.it('body', async () => {
      ran += 1;
    });
    expect(recorded.bodies[0]!.length).toBe(0);
    await recorded.bodies[0]!();
    expect(ran).toBe(1);
  });

  it('refuses a runner that lacks a function, keeping the one in use', () => {
    const bogus = [
      {},
      { describe: 'x', it: () => 0, beforeEach: () => 0, afterEach: () => 0 },
      null,
    ];
    for (const runnerLike of bogus) {
      expect(() => runner.useTestRunner(runnerLike as never)).toThrow(ConfigError);
    }
    expect(runner.currentRunner().describe).toBe(describe);
  });

  it('a runner without it.skip gets a test that does nothing', () => {
    const registered: string[] = [];
    runner.useTestRunner({
      describe: (_title, body) => body(),
      it: (title) => registered.push(title),
      beforeEach: () => undefined,
      afterEach: () => undefined,
    });
    runner.it.skipIf('a reason')('skipped', () => {
      throw new Error('must not run');
    });
    expect(registered).toEqual(['skipped']);
  });

  it('no file of cortexis/testing imports a test framework (case files import ../runner.js)', () => {
    const folder = join(import.meta.dirname, '../../src/testing');
    const files = readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((file) =>
      file.endsWith('.ts'),
    );
    expect(files.length).toBeGreaterThan(20);
    const offenders = files.filter((file) =>
      /from '(?:vitest|@jest\/globals|node:test)'/.test(readFileSync(join(folder, file), 'utf8')),
    );
    expect(offenders).toEqual([]);
  });
});
