import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

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
        env: { ...process.env, OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', OLLAMA_HOST: '' },
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
    const { code, stdout } = await cli(
      ['chat', dir],
      'How fast does support answer?\nWhere do parcels ship from?\nquit\nnever read\n',
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/one business day \[source: S\d\]/);
    expect(stdout).toMatch(/Rotterdam \[source: S\d\]/);
    expect(stdout).toMatch(/Session ended/);
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
