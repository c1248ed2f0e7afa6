import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
let cacheDir = '';

beforeAll(async () => {
  cacheDir = await mkdtemp(join(tmpdir(), 'cortexis-cli-cache-'));
});

/** Runs the CLI from the sources as `cortexis <args>`, feeding `input` on stdin. */
function cli(
  args: string[],
  input = '',
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(root, 'src/cli/main.ts'), ...args],
      {
        cwd: root,
        env: {
          ...process.env,
          OPENAI_API_KEY: '',
          ANTHROPIC_API_KEY: '',
          OLLAMA_HOST: '',
          CORTEXIS_CACHE_DIR: cacheDir,
        },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('cortexis CLI', () => {
  it('ask: answers from the bundled docs offline with sources and confidence', async () => {
    const { code, stdout, stderr } = await cli(['ask', 'docs', 'What does guard mode do?']);
    expect(code).toBe(0);
    expect(stderr).toMatch(/Model: extractive/);
    expect(stderr).toMatch(/Indexing \[#+\] 100%/);
    expect(stdout).toMatch(/\[source: S\d\]/);
    expect(stdout).toMatch(/Sources:\n {2}\[S1\] .+ score \d\.\d\d/);
    expect(stdout).toMatch(/Confidence: (low|medium|high) \d\.\d\d/);
  });

  it('chat: answers each question and leaves on quit', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cortexis-cli-'));
    await writeFile(join(dir, 'faq.md'), '# FAQ\n\nSupport answers within one business day.\n');
    await writeFile(
      join(dir, 'page.html'),
      '<html><body><h1>Shipping</h1><p>Parcels ship from Rotterdam.</p></body></html>',
    );
    const { code, stdout, stderr } = await cli(
      ['chat', dir],
      'How fast does support answer?\nWhere do parcels ship from?\nquit\nnever read\n',
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/one business day \[source: S\d\]/);
    expect(stdout).toMatch(/Rotterdam \[source: S\d\]/);
    expect(stdout).toMatch(/Session ended/);
    // The conversation is kept in a SQLite file: two questions and two answers.
    const path = /Sessions: (.+sessions\.db)/.exec(stderr)?.[1];
    expect(path).toBeDefined();
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(path!, { readonly: true });
    const rows = db.prepare('select role from messages order by created_at').all() as {
      role: string;
    }[];
    db.close();
    expect(rows.map((row) => row.role).slice(-4)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
  });

  it('reuses the cached index while the files are unchanged, and indexes again when one changes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cortexis-cli-'));
    await writeFile(join(dir, 'faq.md'), '# FAQ\n\nSupport answers within one business day.\n');
    const first = await cli(['ask', dir, 'How fast does support answer?']);
    expect(first.stderr).toMatch(/Indexed 1 documents/);
    const second = await cli(['ask', dir, 'How fast does support answer?']);
    expect(second.stderr).toMatch(/Loaded the index of 1 unchanged files/);
    expect(second.stdout).toBe(first.stdout);
    await writeFile(join(dir, 'faq.md'), '# FAQ\n\nSupport answers within two hours.\n');
    const third = await cli(['ask', dir, 'How fast does support answer?']);
    expect(third.stderr).toMatch(/Indexed 1 documents/);
    expect(third.stdout).toMatch(/two hours/);
    const forced = await cli(['ask', '--no-cache', dir, 'How fast does support answer?']);
    expect(forced.stderr).toMatch(/Indexed 1 documents/);
  });

  it('explains its usage on bad arguments', async () => {
    const missing = await cli(['ask', 'docs']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/needs at least one path and a question/);
    const empty = await cli(['ask', join(root, 'src/ports'), 'anything?']);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/no .* files found/);
    const unknown = await cli(['serve']);
    expect(unknown.stderr).toMatch(/Unknown command 'serve'/);
  });
});
