import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from './cli-command.js';

// Issue 28: exit codes as docs/cli.md documents them: 1 when the index cannot be written to the
// cache folder, 4 ("partial") when `index` indexed the good files but skipped bad ones.
let work = '';

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cortexis-exit-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

function cli(
  args: string[],
  cacheDir: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, { CORTEXIS_CACHE_DIR: cacheDir });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end();
  });
}

async function folder(name: string, files: Record<string, string | Buffer>): Promise<string> {
  const dir = join(work, name);
  await mkdir(dir);
  for (const [file, text] of Object.entries(files)) await writeFile(join(dir, file), text);
  return dir;
}

describe('cortexis exit codes', () => {
  it('exits 1 when the cache folder cannot be written, after printing the answer', async () => {
    const docs = await folder('docs-cache', {
      'faq.md': '# FAQ\n\nSupport answers within a day.\n',
    });
    // A file where the cache folder should be: no folder can be made under it (even as root).
    const cache = join(work, 'not-a-folder');
    await writeFile(cache, 'x');
    const indexed = await cli(['index', docs], cache);
    expect(indexed.code).toBe(1);
    expect(indexed.stderr).toMatch(/Error: could not save the index/);
    const asked = await cli(['ask', docs, 'When does support answer?'], cache);
    expect(asked.stdout).toMatch(/within a day/);
    expect(asked.code).toBe(1);
  }, 60_000);

  it('indexes the good files, lists the bad ones and exits 4 (partial)', async () => {
    const docs = await folder('docs-partial', {
      'good.md': '# Good\n\nRefunds take two weeks.\n',
      'late-nul.txt': `${'a'.repeat(9000)}\u0000`,
      'records.jsonl': `${JSON.stringify({ id: 'ok', text: 'fine' })}\n${JSON.stringify({ id: 'bad\nid', text: 'x' })}`,
      'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47]),
    });
    const cache = await mkdtemp(join(work, 'cache-'));
    const result = await cli(['index', docs, '--json'], cache);
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(
      /Skipped .*late-nul\.txt: binary content \(NUL bytes at byte 9000\)/,
    );
    expect(result.stderr).toMatch(/Skipped .*records\.jsonl:2: not indexable: id: /);
    const summary = JSON.parse(result.stdout) as { added: string[] };
    expect(summary.added).toEqual(['good.md', 'ok']);
    // Only expected skips (an unsupported file type): a full success.
    await rm(join(docs, 'late-nul.txt'));
    await writeFile(join(docs, 'records.jsonl'), JSON.stringify({ id: 'ok', text: 'fine' }));
    const clean = await cli(['index', docs], cache);
    expect(clean.stderr).toMatch(/Skipped .*logo\.png: unsupported/);
    expect(clean.code).toBe(0);
  }, 60_000);
});
