/**
 * `ask` on an indexed folder reads no file again when none was touched since the index was
 * saved (issue 29): the stamp of the files (sizes, times, inodes) kept in the manifest decides.
 */
import { createHash } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexDir, indexFingerprint } from '../../src/cli/open-index.js';
import { openQuietly } from './open-quietly.js';
import { createHashingEmbedder } from '../../src/adapters/hashing/embedder.js';
import { parseSourceRecord, stampSources } from '../../src/cli/source-stamp.js';

/** An hour ago: older than the stamp's settling time. */
const PAST = new Date(Date.now() - 3_600_000);

async function folder(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cortexis-fast-'));
  for (const [name, text] of Object.entries(files)) await write(dir, name, text);
  return dir;
}

async function write(dir: string, name: string, text: string, time: Date = PAST): Promise<void> {
  await writeFile(join(dir, name), text);
  await utimes(join(dir, name), time, time);
}

async function open(dir: string, cache: string, noCache = false) {
  const { opened, stderr } = await openQuietly(cache, { paths: [dir], noCache, progress: false });
  return { opened, stderr, untouched: stderr.includes('no file touched since it was saved') };
}

const FILES = {
  'faq.md': '# FAQ\n\nSupport answers within one business day.\n',
  'shipping.md': '# Shipping\n\nParcels ship from Rotterdam every weekday.\n',
  'notes.xyz': 'not a document type',
};

describe('opening an indexed folder whose files were not touched', () => {
  it('reads no file, reports the same documents and skips, and answers from the index', async () => {
    const dir = await folder(FILES);
    const cache = await mkdtemp(join(tmpdir(), 'cortexis-fast-cache-'));
    const first = await open(dir, cache);
    expect(first.untouched).toBe(false);
    expect(first.stderr).toMatch(/Indexed 2 documents/);

    const second = await open(dir, cache);
    expect(second.untouched).toBe(true);
    expect(second.stderr).toMatch(/Skipped .*notes\.xyz/);
    expect(second.opened.documents).toBe(2);
    expect(second.opened.skipped).toEqual(first.opened.skipped);
    expect(second.opened.changes).toEqual({ added: [], changed: [], removed: [], unchanged: 2 });
    const reply = await second.opened.engine.chat({
      message: 'How fast does support answer?',
      mode: 'query',
    });
    expect(reply.text).toMatch(/one business day/);
    expect(reply.sources[0]?.documentId).toBe('faq.md');
  });

  it('notices an edit that keeps the size and the modification time (the change time moves)', async () => {
    const dir = await folder(FILES);
    const cache = await mkdtemp(join(tmpdir(), 'cortexis-fast-cache-'));
    await open(dir, cache);
    await write(dir, 'faq.md', '# FAQ\n\nSupport answers within two business days\n');
    const edited = await open(dir, cache);
    expect(edited.untouched).toBe(false);
    expect(edited.opened.changes.changed).toEqual(['faq.md']);
    const reply = await edited.opened.engine.chat({
      message: 'How fast does support answer?',
      mode: 'query',
    });
    expect(reply.text).toMatch(/two business days/);
    expect((await open(dir, cache)).untouched).toBe(true);
  });

  it('notices added and removed files', async () => {
    const dir = await folder(FILES);
    const cache = await mkdtemp(join(tmpdir(), 'cortexis-fast-cache-'));
    await open(dir, cache);
    await write(dir, 'returns.md', '# Returns\n\nReturns within 30 days.\n');
    const added = await open(dir, cache);
    expect(added.opened.changes.added).toEqual(['returns.md']);
    await rm(join(dir, 'shipping.md'));
    const removed = await open(dir, cache);
    expect(removed.opened.changes.removed).toEqual(['shipping.md']);
    expect(removed.untouched).toBe(false);
    expect((await open(dir, cache)).opened.documents).toBe(2);
  });

  it('reads every file while one was modified moments ago', async () => {
    const dir = await folder(FILES);
    const cache = await mkdtemp(join(tmpdir(), 'cortexis-fast-cache-'));
    await write(dir, 'faq.md', FILES['faq.md'], new Date(Date.now() + 60_000));
    expect(await stampSources([dir], {})).toBeUndefined();
    await open(dir, cache);
    expect((await open(dir, cache)).untouched).toBe(false);
    await utimes(join(dir, 'faq.md'), PAST, PAST);
    expect(await stampSources([dir], {})).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a file touched but unchanged (chmod) is read once more, then only the stamp is saved', async () => {
    const dir = await folder(FILES);
    const cache = await mkdtemp(join(tmpdir(), 'cortexis-fast-cache-'));
    await open(dir, cache);
    const before = await stampSources([dir], {});
    await chmod(join(dir, 'faq.md'), 0o600);
    expect(await stampSources([dir], {})).not.toBe(before);
    const touched = await open(dir, cache);
    expect(touched.untouched).toBe(false);
    expect(touched.stderr).not.toMatch(/Indexed/);
    expect(touched.opened.changes.unchanged).toBe(2);
    expect((await open(dir, cache)).untouched).toBe(true);
  });

  it('reads the files again when the index is damaged or --no-cache is given', async () => {
    const dir = await folder(FILES);
    const cache = await mkdtemp(join(tmpdir(), 'cortexis-fast-cache-'));
    await open(dir, cache);
    expect((await open(dir, cache, true)).stderr).toMatch(/Indexed 2 documents/);
    const index = indexDir(join(cache, ''), [dir]);
    const vectors = join(index, 'vectors.bin');
    const bytes = await readFile(vectors);
    bytes[bytes.length - 1]! ^= 0xff;
    await writeFile(vectors, bytes);
    const damaged = await open(dir, cache);
    expect(damaged.untouched).toBe(false);
    expect(damaged.stderr).toMatch(/Indexed 2 documents/);
    expect((await open(dir, cache)).untouched).toBe(true);
  });

  it('rebuilds an index saved by another version or before the index revision', async () => {
    const dir = await folder(FILES);
    const cache = await mkdtemp(join(tmpdir(), 'cortexis-fast-cache-'));
    await open(dir, cache);
    const manifestPath = join(indexDir(cache, [dir]), 'manifest.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Record<string, unknown>;
    const embedderId = createHashingEmbedder().id;
    expect(indexFingerprint(embedderId, '0.0.1')).not.toBe(manifest['fingerprint']);
    const saved = [
      // Another release's index.
      indexFingerprint(embedderId, '0.0.1'),
      // The fingerprint an index was saved with before it carried the version and revision.
      createHash('sha256')
        .update(
          JSON.stringify({
            embedderId,
            chunkSize: 512,
            chunkOverlap: 64,
            keywordTokenizer: 'stemmed-v1',
          }),
        )
        .digest('hex'),
    ];
    for (const fingerprint of saved) {
      await writeFile(manifestPath, JSON.stringify({ ...manifest, fingerprint }));
      const opened = await open(dir, cache);
      expect(opened.untouched).toBe(false);
      expect(opened.stderr).toMatch(/Indexed 2 documents/);
      expect((await open(dir, cache)).untouched).toBe(true);
    }
  });

  it('ignores a hostile or malformed stamp in the manifest', async () => {
    const dir = await folder(FILES);
    const cache = await mkdtemp(join(tmpdir(), 'cortexis-fast-cache-'));
    await open(dir, cache);
    const manifestPath = join(indexDir(cache, [dir]), 'manifest.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Record<string, unknown>;
    const stamp = (manifest['sources'] as { stamp: string }).stamp;
    const hostile = [
      { stamp: 'x\u0000', documents: 2, skipped: [] },
      { stamp, documents: -1, skipped: [] },
      { stamp, documents: 2, skipped: [{ path: 1 }] },
      { stamp, documents: 2, skipped: 'a'.repeat(100_000) },
      { stamp: `${stamp}\ud800`, documents: 2, skipped: [] },
      null,
    ];
    for (const sources of hostile) {
      expect(parseSourceRecord(sources)).toBeUndefined();
      await writeFile(manifestPath, JSON.stringify({ ...manifest, sources }));
      const opened = await open(dir, cache);
      expect(opened.untouched).toBe(false);
      expect(opened.opened.documents).toBe(2);
    }
  });
});

describe('the stamp of the files', () => {
  it('does not depend on how the one path is spelled or where the command runs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cortexis-stamp-'));
    await writeFile(join(dir, 'a.md'), '# A\n\nText.\n');
    await utimes(join(dir, 'a.md'), new Date(0), new Date(0));
    const absolute = await stampSources([dir], {});
    const cwd = process.cwd();
    try {
      process.chdir(tmpdir());
      expect(await stampSources([join('.', dir.slice(tmpdir().length + 1))], {})).toBe(absolute);
      expect(await stampSources([dir], { textField: 'body' })).not.toBe(absolute);
    } finally {
      process.chdir(cwd);
    }
  });
});
