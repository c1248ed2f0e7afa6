/**
 * `cortexis/testing` as a jest or `node:test` user gets it: the BUILT entry (tsup, this
 * repository's configuration), installed in a temporary project that has no vitest, imported
 * by a plain `node --test` process (ES module and CommonJS), running a conformance suite,
 * `createMockLLM` and `createFaultyLLM` (issue 29).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import tsupConfig, { entries } from '../../tsup.config.js';
import { readPackageJson, root } from './pack.js';

const run = promisify(execFile);
let project: string;

/** Runs node in the project; resolves with its exit code and output, whatever the code. */
async function node(args: readonly string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, args, {
      cwd: project,
      env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** The `# pass N` and `# fail N` counts of a TAP report. */
function counts(tap: string): { pass: number; fail: number } {
  const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(tap)?.[1]);
  return { pass: count('pass'), fail: count('fail') };
}

const SUITE = `
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { createFaultyLLM, createMockLLM, testSessionStore } from 'cortexis/testing';
import { createMemorySessionStore } from 'cortexis';

const broken = process.env.CORTEXIS_BROKEN === '1';
testSessionStore({
  title: 'memory session store under node:test',
  create: () => {
    const store = createMemorySessionStore();
    // A broken adapter: its name is empty and it loses every session it is given.
    return broken
      ? new Proxy(store, { get: (target, key) => key === 'name' ? '' : key === 'getSession' ? async () => null : Reflect.get(target, key) })
      : store;
  },
});

it('createMockLLM answers its script', async () => {
  const llm = createMockLLM({ responses: ['First.', 'Second.'] });
  const request = { messages: [{ role: 'user', content: 'Hi?' }] };
  assert.equal((await llm.generate(request)).text, 'First.');
  assert.equal((await llm.generate(request)).text, 'Second.');
  assert.equal(llm.calls.length, 2);
});

it('createFaultyLLM fails on its script', async () => {
  const llm = createFaultyLLM({ faults: [{ error: { status: 503 } }] });
  const request = { messages: [{ role: 'user', content: 'Hi?' }] };
  await assert.rejects(llm.generate(request), (error) => error.status === 503);
  assert.equal((await llm.generate(request)).text, 'Mock answer.');
});
`;

const COMMONJS_SUITE = `
const { createMockLLM, testLearningSink } = require('cortexis/testing');
const { createMemoryLearningSink } = require('cortexis');
const { it } = require('node:test');
const assert = require('node:assert/strict');
testLearningSink({ title: 'memory learning sink, CommonJS', create: () => createMemoryLearningSink() });
it('createMockLLM from require()', async () => {
  assert.equal((await createMockLLM().generate({ messages: [] })).text, 'Mock answer.');
});
`;

describe('cortexis/testing without vitest', () => {
  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), 'cortexis-testing-'));
    const target = join(project, 'node_modules', 'cortexis');
    mkdirSync(target, { recursive: true });
    const { build } = await import('tsup');
    const [library] = Array.isArray(tsupConfig) ? tsupConfig : [tsupConfig];
    await build({
      ...library,
      config: false,
      silent: true,
      dts: false,
      sourcemap: false,
      entry: { index: entries.index, testing: entries.testing },
      outDir: join(target, 'dist'),
    });
    writeFileSync(
      join(target, 'package.json'),
      JSON.stringify({
        name: 'cortexis',
        type: 'module',
        exports: {
          '.': { import: './dist/index.js', require: './dist/index.cjs' },
          './testing': { import: './dist/testing.js', require: './dist/testing.cjs' },
        },
      }),
    );
    // The package's own dependencies, as npm would install them; no vitest among them.
    for (const name of Object.keys(readPackageJson().dependencies ?? {})) {
      const destination = join(project, 'node_modules', name);
      mkdirSync(join(destination, '..'), { recursive: true });
      symlinkSync(join(root, 'node_modules', name), destination, 'dir');
    }
    writeFileSync(join(project, 'suite.test.mjs'), SUITE);
    writeFileSync(join(project, 'suite.test.cjs'), COMMONJS_SUITE);
  }, 240_000);

  afterAll(() => {
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it('has no vitest to resolve', async () => {
    expect(existsSync(join(project, 'node_modules', 'vitest'))).toBe(false);
    const probe = await node(['--input-type=module', '-e', "await import('vitest')"]);
    expect(probe.code).not.toBe(0);
    expect(probe.stderr).toContain("Cannot find package 'vitest'");
  });

  it('runs a conformance suite and the fake providers under node --test (ES module)', async () => {
    const result = await node(['--test', '--test-reporter=tap', 'suite.test.mjs']);
    expect(result.stdout).toContain('memory session store under node:test');
    expect(counts(result.stdout)).toEqual({ pass: expect.any(Number), fail: 0 });
    expect(counts(result.stdout).pass).toBeGreaterThan(20);
    expect(result.code).toBe(0);
  }, 120_000);

  it('reports a broken adapter as failed tests', async () => {
    const result = await run(
      process.execPath,
      ['--test', '--test-reporter=tap', 'suite.test.mjs'],
      {
        cwd: project,
        env: { PATH: process.env['PATH'] ?? '', CORTEXIS_BROKEN: '1' },
      },
    ).then(
      () => ({ code: 0, stdout: '' }),
      (error: { code: number; stdout: string }) => error,
    );
    expect(result.code).not.toBe(0);
    expect(counts(result.stdout).fail).toBeGreaterThan(1);
    expect(result.stdout).toContain('AssertionError');
  }, 120_000);

  it('runs under node --test from require() (CommonJS, as jest loads it)', async () => {
    const result = await node(['--test', '--test-reporter=tap', 'suite.test.cjs']);
    expect(counts(result.stdout).fail).toBe(0);
    expect(counts(result.stdout).pass).toBeGreaterThan(10);
    expect(result.code).toBe(0);
  }, 120_000);

  it('imports without any runner, and a suite then names useTestRunner', async () => {
    const result = await node([
      '--input-type=module',
      '-e',
      `process.getBuiltinModule = undefined;
       const testing = await import('cortexis/testing');
       try { testing.testRateLimiter({ create: () => ({}) }); }
       catch (error) { console.log(error.code, error.message); }`,
    ]);
    expect(result.stdout).toContain('config_error');
    expect(result.stdout).toContain('useTestRunner');
  });
});
