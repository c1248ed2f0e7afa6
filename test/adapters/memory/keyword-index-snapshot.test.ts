import { describe, expect, it } from 'vitest';
import { createMemoryKeywordIndex } from '../../../src/adapters/memory/keyword-index.js';
import { encodeSnapshot } from '../../../src/adapters/memory/snapshot.js';
import { ValidationError } from '../../../src/errors/index.js';

async function seeded() {
  const index = createMemoryKeywordIndex();
  await index.add('docs', [
    { id: 'a', text: 'hybrid retrieval with bm25 and vectors', metadata: { lang: 'en' } },
    { id: 'b', text: 'vectors vectors everywhere', metadata: { lang: 'en' } },
    { id: 'c', text: 'knowledge graph traversal', metadata: { lang: 'de' } },
  ]);
  await index.add('other', [{ id: 'a', text: 'unrelated namespace', metadata: {} }]);
  await index.delete('docs', { ids: ['c'] });
  await index.add('docs', [{ id: 'd', text: 'graph vectors', metadata: { lang: 'fr' } }]);
  return index;
}

describe('memory keyword index snapshots', () => {
  it('round-trips postings, scores, filters, deletes and namespaces', async () => {
    const index = await seeded();
    const copy = createMemoryKeywordIndex();
    copy.restore(index.snapshot());
    for (const query of ['vectors', 'graph retrieval', 'namespace']) {
      for (const namespace of ['docs', 'other']) {
        expect(await copy.search(namespace, query, { k: 10 })).toEqual(
          await index.search(namespace, query, { k: 10 }),
        );
      }
    }
    expect(await copy.count('docs')).toBe(3);
    expect(await copy.search('docs', 'vectors', { k: 5, filter: { lang: 'fr' } })).toHaveLength(1);
    // The restored index keeps working: replace, delete, and reuse of free numbers.
    await copy.add('docs', [{ id: 'e', text: 'fresh vectors', metadata: {} }]);
    expect(await copy.delete('docs', { ids: ['a'] })).toBe(1);
    const ids = (await copy.search('docs', 'vectors', { k: 10 })).map((match) => match.id).sort();
    expect(ids).toEqual(['b', 'd', 'e']);
  });

  it('rejects corrupt and foreign snapshots with ValidationError, index unchanged', async () => {
    const index = await seeded();
    const bytes = index.snapshot();
    const corrupt = bytes.slice();
    corrupt[40]! ^= 1;
    const foreign = encodeSnapshot('graph', { namespaces: [] });
    const malformed = encodeSnapshot('keywords', {
      namespaces: [
        {
          name: 'x',
          ids: ['a'],
          metadata: [{}],
          lengths: [1],
          free: [],
          postings: [['t', [5], [1]]],
        },
      ],
    });
    for (const bad of [corrupt, foreign, malformed, bytes.subarray(0, 30)]) {
      expect(() => index.restore(bad)).toThrow(ValidationError);
    }
    expect(await index.count('docs')).toBe(3);
    expect(await index.count('x')).toBe(0);
  });
});
