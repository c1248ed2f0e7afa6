import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryGraphStore } from '../../src/adapters/memory/graph-store.js';
import { createMemoryKeywordIndex } from '../../src/adapters/memory/keyword-index.js';
import { createMemoryVectorStore } from '../../src/adapters/memory/vector-store.js';
import { loadSnapshot, restoreStores, saveSnapshot } from '../../src/cli/snapshot.js';
import { ValidationError } from '../../src/errors/index.js';

describe('CLI snapshots', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cortexis-snapshot-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function stores() {
    const vectors = createMemoryVectorStore();
    const keywords = createMemoryKeywordIndex();
    const graph = createMemoryGraphStore();
    await vectors.upsert('default', [{ id: 'a#0', vector: [1, 2, 3], metadata: { text: 'x' } }]);
    await keywords.add('default', [{ id: 'a#0', text: 'alpha beta', metadata: {} }]);
    await graph.upsertNodes('default', [{ id: 'a', type: 'document', properties: {} }]);
    return { vectors, keywords, graph };
  }

  it('saves and loads the three stores for the same fingerprint only', async () => {
    const saved = await stores();
    await saveSnapshot(dir, saved, 'f1');
    expect(await loadSnapshot(dir, 'f2')).toBeNull();
    const loaded = await loadSnapshot(dir, 'f1');
    expect(Object.keys(loaded ?? {}).sort()).toEqual(['graph', 'keywords', 'vectors']);
    const fresh = {
      vectors: createMemoryVectorStore(),
      keywords: createMemoryKeywordIndex(),
      graph: createMemoryGraphStore(),
    };
    restoreStores(fresh, loaded!);
    expect(await fresh.vectors.query('default', [1, 2, 3], { k: 1 })).toEqual(
      await saved.vectors.query('default', [1, 2, 3], { k: 1 }),
    );
    expect(await fresh.keywords.search('default', 'alpha', { k: 1 })).toHaveLength(1);
    expect(await fresh.graph.getNode('default', 'a')).not.toBeNull();
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ version: 1, fingerprint: 'f1' });
  });

  it('returns null without a snapshot or with an unreadable manifest', async () => {
    expect(await loadSnapshot(join(dir, 'missing'), 'f')).toBeNull();
    await writeFile(join(dir, 'manifest.json'), '{not json');
    expect(await loadSnapshot(dir, 'f')).toBeNull();
  });

  it('surfaces a corrupt store file as a ValidationError and leaves that store unchanged', async () => {
    await saveSnapshot(dir, { vectors: (await stores()).vectors }, 'f1');
    const path = join(dir, 'vectors.bin');
    const bytes = await readFile(path);
    bytes[bytes.length - 1]! ^= 0xff;
    await writeFile(path, bytes);
    const target = createMemoryVectorStore();
    await target.upsert('default', [{ id: 'keep', vector: [0, 1], metadata: {} }]);
    const loaded = await loadSnapshot(dir, 'f1');
    expect(() => restoreStores({ vectors: target }, loaded!)).toThrow(ValidationError);
    expect(await target.count('default')).toBe(1);
  });

  it('keeps the document hashes in the manifest for incremental indexing', async () => {
    await saveSnapshot(dir, await stores(), 'f1', { 'a.md': 'h1', 'b.md': 'h2' });
    const loaded = await loadSnapshot(dir, 'f1');
    expect(loaded?.documents).toEqual({ 'a.md': 'h1', 'b.md': 'h2' });
    // A manifest whose hashes are not strings is not trusted: the index is built again.
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
    await writeFile(
      join(dir, 'manifest.json'),
      JSON.stringify({ ...manifest, documents: { 'a.md': 1 } }),
    );
    expect(await loadSnapshot(dir, 'f1')).toBeNull();
  });
});
