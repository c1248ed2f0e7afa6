import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ValidationError } from 'cortexis';
import { loadDocuments, type LoadOptions } from 'cortexis/loaders';
import { PARSE_POOL, ParsePool, sharedParsePool } from '../../src/loaders/pool.js';

const work = mkdtempSync(join(tmpdir(), 'cortexis-parse-worker-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A folder of markdown files: `name → text`. */
function folder(name: string, files: Record<string, string>): string {
  const dir = join(work, name);
  mkdirSync(dir);
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

const hanging = () =>
  new ParsePool({
    url: new URL('../fixtures/hanging-parse-worker.ts', import.meta.url),
  });

const withPool = (pool: ParsePool, options: LoadOptions): LoadOptions =>
  ({ ...options, [PARSE_POOL]: pool }) as LoadOptions;

describe('parsing in a worker with a deadline', () => {
  it('stops a stuck parser at limits.parseTimeoutMs, skips that file (timeout) and loads the rest', async () => {
    const dir = folder('stuck', {
      'a.md': '# A\n\nFirst.',
      'b.md': '# B\n\nHANG',
      'c.md': '# C\n\nThird.',
      'd.md': 'HANG again',
      'e.md': '# E\n\nFifth.',
    });
    const pool = hanging();
    const result = await loadDocuments([dir], withPool(pool, { limits: { parseTimeoutMs: 300 } }));
    expect(result.documents.map((doc) => [doc.id, doc.text])).toEqual([
      ['a.md', '# A\n\nFirst.'],
      ['c.md', '# C\n\nThird.'],
      ['e.md', '# E\n\nFifth.'],
    ]);
    expect(result.skipped.map((file) => [file.path, file.code])).toEqual([
      [join(dir, 'b.md'), 'timeout'],
      [join(dir, 'd.md'), 'timeout'],
    ]);
    expect(result.skipped[0]!.reason).toContain('limits.parseTimeoutMs (300 ms)');
    // The first worker, and one replacement per stuck file: the files after each still parsed.
    expect(pool.started).toBe(3);
    expect(pool.answered).toBe(3);
    await pool.close();
  });

  it('replaces a worker that exits while parsing: that file is a parse-error, the next parse', async () => {
    const dir = folder('crash', { 'a.md': 'One.', 'b.md': 'EXIT', 'c.md': 'Three.' });
    const pool = hanging();
    const result = await loadDocuments([dir], withPool(pool, {}));
    expect(result.documents.map((doc) => doc.id)).toEqual(['a.md', 'c.md']);
    expect(result.skipped).toEqual([
      {
        path: join(dir, 'b.md'),
        code: 'parse-error',
        reason: 'cannot parse: the parse worker exited with code 3',
      },
    ]);
    expect(pool.started).toBe(2);
    await pool.close();
  });

  it('reuses one worker across files and calls', async () => {
    const dir = folder('reuse', {
      'a.md': 'One.',
      'b.md': 'Two.',
      'c.html': '<p>Three.</p>',
      'd.txt': 'Four, on the calling thread.',
    });
    const pool = hanging();
    for (let call = 0; call < 2; call += 1) {
      const result = await loadDocuments([dir], withPool(pool, {}));
      expect(result.documents.map((doc) => doc.text)).toEqual([
        'One.',
        'Two.',
        'Three.',
        'Four, on the calling thread.',
      ]);
    }
    expect(pool.started).toBe(1);
    expect(pool.answered).toBe(6);
    await pool.close();
  });

  it('keeps the errors of the parsers across the worker (their skip codes and reasons)', async () => {
    const dir = folder('errors', {
      'keys.md': '---\na: 1\nb: 2\nc: 3\n---\n\nText.',
      'nul.md': `${'x'.repeat(10)}\u0000${'y'.repeat(10)}`,
      'bad.json': '{ not json',
      'ok.md': 'Fine.',
    });
    const before = sharedParsePool().answered;
    const inWorker = await loadDocuments([dir], { limits: { maxFrontMatterKeys: 2 } });
    // Every markdown file went through the shared worker, by default (JSON stays on this thread).
    expect(sharedParsePool().answered - before).toBe(3);
    const inThread = await loadDocuments([dir], {
      limits: { maxFrontMatterKeys: 2 },
      worker: false,
    });
    expect(inWorker).toEqual(inThread);
    expect(inWorker.skipped.map((file) => file.code).sort()).toEqual([
      'binary',
      'parse-error',
      'too-large',
    ]);
  });

  it('a stuck parser on the calling thread is what worker: false means: no worker is started', async () => {
    const dir = folder('inline', { 'a.md': 'HANG is only stuck in the test worker' });
    const pool = hanging();
    const result = await loadDocuments([dir], withPool(pool, { worker: false }));
    expect(result.documents).toHaveLength(1);
    expect(pool.started).toBe(0);
  });

  it('parses on the calling thread when the worker script cannot start', async () => {
    const dir = folder('missing', { 'a.md': 'Still loads.' });
    const pool = new ParsePool({ url: new URL('file:///nonexistent/loaders-worker.js') });
    const result = await loadDocuments([dir], withPool(pool, {}));
    expect(result.documents.map((doc) => doc.text)).toEqual(['Still loads.']);
    expect(pool.started).toBe(1);
    // Not tried again for every file.
    await loadDocuments([dir], withPool(pool, {}));
    expect(pool.started).toBe(1);
  });

  it('refuses hostile worker and parseTimeoutMs values', async () => {
    const dir = folder('hostile', { 'a.md': 'A.' });
    for (const worker of ['yes', 1, null, '\u0000'] as unknown[]) {
      await expect(loadDocuments([dir], { worker } as LoadOptions)).rejects.toThrow(
        ValidationError,
      );
    }
    for (const parseTimeoutMs of [
      0,
      -1,
      1.5,
      Number.NaN,
      Infinity,
      2 ** 60,
      '\ud800',
    ] as unknown[]) {
      await expect(
        loadDocuments([dir], { limits: { parseTimeoutMs } } as LoadOptions),
      ).rejects.toThrow('limits.parseTimeoutMs must be a positive integer');
    }
    // The largest a timer holds, and past it (capped, not fired at once).
    const result = await loadDocuments([dir], { limits: { parseTimeoutMs: 2 ** 40 } });
    expect(result.documents).toHaveLength(1);
  });
});
