import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createChatEngine } from 'cortexis';
import { loadDocuments } from 'cortexis/loaders';

// Issue 28: `loadDocuments` never returns what `engine.ingest` refuses. Each trigger sits next
// to a good file; the good one is loaded, the bad one skipped with its reason, and the loaded
// batch is accepted by `ingest` as a whole (the atomic default).
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cortexis-ingestable-'));
  writeFileSync(join(dir, 'good.md'), '# Good\n\nRefunds take two weeks.\n');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function loadAndIngest(): Promise<{ ids: string[]; skipped: [string, string][] }> {
  const { documents, skipped } = await loadDocuments([dir]);
  const engine = createChatEngine();
  const result = await engine.ingest(documents);
  expect(result.documents).toBe(documents.length);
  return {
    ids: documents.map((doc) => doc.id),
    skipped: skipped.map((file) => [file.path.replace(`${dir}/`, ''), file.code]),
  };
}

const utf16le = (text: string) =>
  Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);

describe('loadDocuments returns only what ingest accepts', () => {
  it('a NUL late in a file (after the first 8 KiB)', async () => {
    writeFileSync(join(dir, 'late.txt'), `${'a'.repeat(9000)}\u0000tail`);
    const { ids, skipped } = await loadAndIngest();
    expect(ids).toEqual(['good.md']);
    expect(skipped).toEqual([['late.txt', 'binary']]);
  });

  it('UTF-16 text holding a NUL character', async () => {
    writeFileSync(join(dir, 'wide.txt'), utf16le('Wide text\u0000 with a NUL.'));
    writeFileSync(join(dir, 'fine.txt'), utf16le('Wide text, fine.'));
    const { ids, skipped } = await loadAndIngest();
    expect(ids).toEqual(['fine.txt', 'good.md']);
    expect(skipped).toEqual([['wide.txt', 'binary']]);
  });

  it('UTF-16 text with a lone surrogate', async () => {
    const bytes = utf16le('ab');
    bytes.writeUInt16LE(0xd800, 2); // 'a' becomes a lone high surrogate
    writeFileSync(join(dir, 'lone.txt'), bytes);
    const { ids, skipped } = await loadAndIngest();
    expect(ids).toEqual(['good.md']);
    expect(skipped).toEqual([['lone.txt', 'binary']]);
  });

  it('JSON records with \\u0000 in the text, a metadata value or a key', async () => {
    const records = [
      { id: 'a', text: 'nul \u0000 here' },
      { id: 'b', text: 'fine', note: 'nul \u0000' },
      { id: 'c', text: 'fine', ['k\u0000']: 1 },
      { id: 'd', text: 'fine too' },
    ];
    writeFileSync(join(dir, 'records.json'), JSON.stringify(records));
    const { ids, skipped } = await loadAndIngest();
    expect(ids).toEqual(['good.md', 'd']);
    expect(skipped).toEqual([
      ['records.json:1', 'invalid'],
      ['records.json:2', 'invalid'],
      ['records.json:3', 'invalid'],
    ]);
  });

  it('record ids with a newline or over 256 characters', async () => {
    const lines = [
      { id: 'two\nlines', text: 'x' },
      { id: 'i'.repeat(257), text: 'y' },
      { id: 'fine', text: 'z' },
    ];
    writeFileSync(join(dir, 'records.jsonl'), lines.map((line) => JSON.stringify(line)).join('\n'));
    const { ids, skipped } = await loadAndIngest();
    expect(ids).toEqual(['good.md', 'fine']);
    expect(skipped).toEqual([
      ['records.jsonl:1', 'invalid'],
      ['records.jsonl:2', 'invalid'],
    ]);
  });

  it('empty metadata keys', async () => {
    writeFileSync(join(dir, 'empty-key.jsonl'), JSON.stringify({ id: 'e', text: 'x', '': 'v' }));
    writeFileSync(join(dir, 'empty-key.md'), '---\n"": value\n---\n\nBody.\n');
    const { ids, skipped } = await loadAndIngest();
    expect(ids).toEqual(['good.md']);
    expect(skipped).toEqual([
      ['empty-key.jsonl:1', 'invalid'],
      ['empty-key.md', 'invalid'],
    ]);
  });

  it('front matter with "\\0"', async () => {
    writeFileSync(join(dir, 'nul.md'), '---\nauthor: "a\\0b"\n---\n\n# Nul\n\nBody.\n');
    const { ids, skipped } = await loadAndIngest();
    expect(ids).toEqual(['good.md']);
    expect(skipped).toEqual([['nul.md', 'invalid']]);
  });

  it('a newline in a file name', async () => {
    writeFileSync(join(dir, 'two\nlines.md'), '# Two\n\nLines.\n');
    const { ids, skipped } = await loadAndIngest();
    expect(ids).toEqual(['good.md']);
    expect(skipped).toEqual([['two\nlines.md', 'invalid']]);
  });

  it('a path over 256 characters', async () => {
    let deep = dir;
    for (let level = 0; level < 3; level++) {
      deep = join(deep, 'd'.repeat(100));
      mkdirSync(deep);
    }
    writeFileSync(join(deep, 'far.md'), '# Far\n\nAway.\n');
    const { ids, skipped } = await loadAndIngest();
    expect(ids).toEqual(['good.md']);
    expect(skipped).toHaveLength(1);
    expect(skipped[0]![1]).toBe('invalid');
    const { skipped: reasons } = await loadDocuments([dir]);
    expect(reasons[0]!.reason).toBe('not indexable: id: must be at most 256 characters');
  });

  it('bounds a reason that quotes a hostile key', async () => {
    writeFileSync(
      join(dir, 'key.jsonl'),
      JSON.stringify({ text: 'x', [`${'k'.repeat(100_000)}\u0000`]: 1 }),
    );
    const { skipped } = await loadDocuments([dir]);
    expect(skipped).toHaveLength(1);
    expect(skipped[0]!.reason.length).toBeLessThanOrEqual(301);
  });
});
