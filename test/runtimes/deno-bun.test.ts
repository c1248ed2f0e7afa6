/**
 * Smoke tests in Deno and Bun: the README quickstart (examples/quickstart.ts), bundled for the
 * browser/worker platform into one ES module with no imports (so no `node:` import anywhere
 * and nothing to resolve or download), runs and answers with a citation. Bun comes from the
 * `bun` devDependency; Deno from `CORTEXIS_TEST_DENO` (set by .ci/run) or `deno` on the PATH,
 * skipped with the reason printed when neither is there. Neither runtime may reach the network
 * or install anything; Deno runs with no permissions at all.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleForRuntime } from './bundle.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));

/** The first of `candidates` that exists, or undefined. */
const firstExisting = (candidates: readonly (string | undefined)[]): string | undefined =>
  candidates.find((path): path is string => path !== undefined && path !== '' && existsSync(path));

/** `name` on the PATH, or undefined. */
const onPath = (name: string): string | undefined =>
  firstExisting((process.env['PATH'] ?? '').split(delimiter).map((dir) => join(dir, name)));

const denoPath = firstExisting([process.env['CORTEXIS_TEST_DENO'], onPath('deno')]);
const bunPath = firstExisting([join(root, 'node_modules', '.bin', 'bun')]);

const denoSkip = denoPath
  ? undefined
  : 'no Deno binary (set CORTEXIS_TEST_DENO; .ci/run fetches one from the npm registry)';
const bunSkip = bunPath ? undefined : 'node_modules/.bin/bun is missing (the bun devDependency)';
if (denoSkip) console.warn(`[skipped] Deno quickstart smoke test: ${denoSkip}`);
if (bunSkip) console.warn(`[skipped] Bun quickstart smoke test: ${bunSkip}`);

let dir: string;
let script: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cortexis-runtimes-'));
  script = join(dir, 'quickstart.mjs');
  const bundle = await bundleForRuntime({ file: 'examples/quickstart.ts' }, 'esm');
  await writeFile(script, bundle.code);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What the quickstart prints: the answer with its citation, its source, the streamed follow-up. */
function expectQuickstartOutput(stdout: string): void {
  const [answer, source, followUp] = stdout.trim().split('\n');
  expect(answer).toMatch(/14 days.*\[source: S1\]/);
  expect(source).toMatch(/^Refunds (high|medium|low)$/);
  expect(followUp).toMatch(/never refunded.*\[source: S1\]/);
}

/** Environment for a child runtime: no provider keys, caches inside the temporary directory. */
const childEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => ({
  PATH: process.env['PATH'] ?? '',
  HOME: dir,
  NO_COLOR: '1',
  ...extra,
});

describe.skipIf(bunSkip !== undefined)(`Bun${bunSkip ? ` [skipped: ${bunSkip}]` : ''}`, () => {
  it('runs the quickstart and answers with a citation', async () => {
    const { stdout } = await run(bunPath!, ['run', '--no-install', '--no-env-file', script], {
      cwd: dir,
      env: childEnv({ BUN_INSTALL_CACHE_DIR: join(dir, 'bun-cache') }),
      timeout: 25_000,
    });
    expectQuickstartOutput(stdout);
  });
});

describe.skipIf(denoSkip !== undefined)(`Deno${denoSkip ? ` [skipped: ${denoSkip}]` : ''}`, () => {
  it('runs the quickstart offline with no permissions and answers with a citation', async () => {
    const { stdout } = await run(
      denoPath!,
      [
        'run',
        '--no-remote',
        '--no-npm',
        '--no-config',
        '--no-lock',
        '--no-prompt',
        '--cached-only',
        script,
      ],
      {
        cwd: dir,
        env: childEnv({ DENO_DIR: join(dir, 'deno-cache'), DENO_NO_UPDATE_CHECK: '1' }),
        timeout: 25_000,
      },
    );
    expectQuickstartOutput(stdout);
  });
});
