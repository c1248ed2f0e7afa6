import { describe, expect, it } from 'vitest';
import { createMemoryGraphStore } from '../../../src/adapters/memory/graph-store.js';
import { encodeSnapshot } from '../../../src/adapters/memory/snapshot.js';
import { ValidationError } from '../../../src/errors/index.js';

async function seeded() {
  const store = createMemoryGraphStore();
  await store.upsertNodes('kb', [
    { id: 'doc', type: 'document', properties: { title: 'Handbook' } },
    { id: 'chunk', type: 'chunk', properties: { index: 0 } },
    { id: 'other', type: 'document', properties: {} },
  ]);
  await store.upsertEdges('kb', [
    { from: 'chunk', to: 'doc', type: 'DERIVED_FROM', weight: 1 },
    { from: 'doc', to: 'other', type: 'CITES', weight: 0.5 },
  ]);
  await store.upsertNodes('second', [{ id: 'doc', type: 'document', properties: { n: 2 } }]);
  return store;
}

describe('memory graph store snapshots', () => {
  it('round-trips nodes, edges and namespaces', async () => {
    const store = await seeded();
    const copy = createMemoryGraphStore();
    copy.restore(store.snapshot());
    expect(await copy.getNode('kb', 'doc')).toEqual(await store.getNode('kb', 'doc'));
    expect(await copy.getNode('second', 'doc')).toMatchObject({ properties: { n: 2 } });
    const options = { depth: 2 } as const;
    expect(await copy.neighbors('kb', 'chunk', options)).toEqual(
      await store.neighbors('kb', 'chunk', options),
    );
    expect(await copy.neighbors('kb', 'other', { depth: 1, direction: 'in' })).toHaveLength(1);
    expect(await copy.deleteNodes('kb', ['doc'])).toBe(1);
    expect(await copy.neighbors('kb', 'chunk', options)).toEqual([]);
  });

  it('rejects corrupt and foreign snapshots with ValidationError, store unchanged', async () => {
    const store = await seeded();
    const corrupt = store.snapshot();
    corrupt[corrupt.length - 1]! ^= 1;
    const badEdge = encodeSnapshot('graph', {
      namespaces: [
        { name: 'kb', nodes: [], edges: [{ from: 'a', to: 'b', type: 'X', weight: 7 }] },
      ],
    });
    for (const bad of [corrupt, encodeSnapshot('vectors', { namespaces: [] }), badEdge]) {
      expect(() => store.restore(bad)).toThrow(ValidationError);
    }
    expect(() => store.restore(badEdge)).toThrow(/weight/);
    expect(await store.getNode('kb', 'doc')).not.toBeNull();
  });
});
