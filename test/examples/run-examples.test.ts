import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');

/** Runs an example as a user would, with tsx resolving `cortexis` to the sources. */
async function example(name: string): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', join(root, 'examples', name)],
    {
      cwd: root,
      timeout: 60_000,
    },
  );
  return stdout;
}

describe('examples run', () => {
  it('quickstart answers with a citation and streams the follow-up', async () => {
    const out = await example('quickstart.ts');
    expect(out).toMatch(/14 days.*\[source: S1\]/);
    expect(out).toMatch(/Gift cards are never refunded/);
  });

  it('custom-vector-store answers through the custom store', async () => {
    const out = await example('custom-vector-store.ts');
    expect(out).toMatch(/one business day \[source: S1\]/);
  });
});
