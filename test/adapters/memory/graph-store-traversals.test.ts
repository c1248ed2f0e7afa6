import { describe, expect, it } from 'vitest';
import { createMemoryGraphStore } from '../../../src/adapters/memory/graph-store.js';
import type { GraphEdge, GraphNode } from '../../../src/ports/graph-store.js';

const node = (id: string): GraphNode => ({ id, type: 'entity', properties: { id } });
const edge = (from: string, to: string, weight = 1, type = 'R'): GraphEdge => ({
  from,
  to,
  type,
  weight,
});
/** The second of two identical traversals (the first is made, the second kept). */
async function twice(
  store: ReturnType<typeof createMemoryGraphStore>,
  ...args: Parameters<ReturnType<typeof createMemoryGraphStore>['neighbors']>
) {
  await store.neighbors(...args);
  return store.neighbors(...args);
}
const ids = (neighbors: readonly { node: GraphNode }[]) => neighbors.map((n) => n.node.id);

/** a → b → c, a → d (weaker), in namespace `ns`. */
async function graph() {
  const store = createMemoryGraphStore();
  await store.upsertNodes('ns', ['a', 'b', 'c', 'd', 'e'].map(node));
  await store.upsertEdges('ns', [edge('a', 'b'), edge('b', 'c', 0.5), edge('a', 'd', 0.4)]);
  return store;
}

describe('memory graph store: repeated traversals', () => {
  it('sees every write made after a traversal (edges, nodes, deletions)', async () => {
    const store = await graph();
    const options = { depth: 2 };
    // Twice each time: a traversal is kept from its second time on.
    const twice = async () => {
      await store.neighbors('ns', 'a', options);
      return store.neighbors('ns', 'a', options);
    };
    expect(ids(await twice())).toEqual(['b', 'd', 'c']);
    await store.upsertEdges('ns', [edge('a', 'e', 0.9)]);
    expect(ids(await twice())).toEqual(['b', 'e', 'd', 'c']);
    await store.upsertNodes('ns', [{ id: 'c', type: 'chunk', properties: { id: 'c2' } }]);
    const [, , , reached] = await twice();
    expect(reached?.node.properties).toEqual({ id: 'c2' });
    await store.deleteNodes('ns', ['b']);
    expect(ids(await twice())).toEqual(['e', 'd']);
    expect(ids(await store.neighbors('ns', 'a', options))).toEqual(['e', 'd']);
  });

  it('keeps traversals with different options or namespaces apart', async () => {
    const store = await graph();
    await store.upsertNodes('other', [node('a'), node('z')]);
    await store.upsertEdges('other', [edge('a', 'z')]);
    expect(ids(await twice(store, 'ns', 'a', { depth: 2 }))).toEqual(['b', 'd', 'c']);
    expect(ids(await twice(store, 'ns', 'a', { depth: 1 }))).toEqual(['b', 'd']);
    expect(ids(await twice(store, 'ns', 'a', { depth: 2, limit: 1 }))).toEqual(['b']);
    expect(ids(await twice(store, 'ns', 'c', { depth: 2, direction: 'out' }))).toEqual([]);
    expect(ids(await twice(store, 'ns', 'c', { depth: 2, direction: 'in' }))).toEqual(['b', 'a']);
    expect(ids(await twice(store, 'ns', 'a', { depth: 2, edgeTypes: ['S'] }))).toEqual([]);
    expect(ids(await twice(store, 'other', 'a', { depth: 2 }))).toEqual(['z']);
  });

  it('gives each caller its own result: changing one does not change the next', async () => {
    const store = await graph();
    for (let call = 0; call < 3; call++) {
      const result = await store.neighbors('ns', 'a', { depth: 2 });
      expect(ids(result)).toEqual(['b', 'd', 'c']);
      expect(result[0]!.weight).toBe(1);
      (result as { weight: number }[])[0]!.weight = 0;
      result.pop();
    }
  });

  it('sees a restored snapshot, not the traversals made before it', async () => {
    const store = await graph();
    const bytes = store.snapshot();
    await store.upsertEdges('ns', [edge('a', 'e')]);
    expect(ids(await store.neighbors('ns', 'a', { depth: 1 }))).toEqual(['b', 'e', 'd']);
    store.restore(bytes);
    expect(ids(await store.neighbors('ns', 'a', { depth: 1 }))).toEqual(['b', 'd']);
  });
});
