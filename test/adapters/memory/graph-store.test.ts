import { describe, expect, it } from 'vitest';
import { createMemoryGraphStore } from '../../../src/adapters/memory/graph-store.js';
import { ValidationError } from '../../../src/errors/index.js';
import type { GraphEdge, GraphNode } from '../../../src/ports/graph-store.js';

const node = (id: string, properties: GraphNode['properties'] = {}): GraphNode => ({
  id,
  type: 'entity',
  properties,
});
const edge = (from: string, to: string, weight = 1, type = 'R'): GraphEdge => ({
  from,
  to,
  type,
  weight,
});

async function validationPath(action: () => Promise<unknown>): Promise<string | undefined> {
  const error = await action().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(ValidationError.isInstance(error)).toBe(true);
  return (error as ValidationError).issues[0]?.path;
}

describe('createMemoryGraphStore', () => {
  it('names the invalid field of bad input', async () => {
    const store = createMemoryGraphStore();
    await store.upsertNodes('ns', [node('a'), node('b')]);
    expect(await validationPath(() => store.upsertNodes('', [node('a')]))).toBe('namespace');
    expect(
      await validationPath(() => store.upsertNodes('ns', [node('c'), { ...node('d'), type: '' }])),
    ).toBe('nodes.1.type');
    expect(
      await validationPath(() => store.upsertEdges('ns', [edge('a', 'b'), edge('a', 'b', 2)])),
    ).toBe('edges.1.weight');
    expect(await validationPath(() => store.upsertEdges('ns', [edge('', 'b')]))).toBe(
      'edges.0.from',
    );
    expect(await validationPath(() => store.neighbors('ns', 'a', { depth: 2.5 }))).toBe('depth');
    expect(await validationPath(() => store.neighbors('ns', 'a', { depth: 1, limit: 0 }))).toBe(
      'limit',
    );
    expect(
      await validationPath(() =>
        store.neighbors('ns', 'a', { depth: 1, direction: 'up' as unknown as 'in' }),
      ),
    ).toBe('direction');
    expect(await validationPath(() => store.neighbors('ns', '', { depth: 1 }))).toBe('nodeId');
    expect(await validationPath(() => store.deleteNodes('ns', ['a', '']))).toBe('ids.1');
  });

  it('applies nothing from a batch with one invalid item', async () => {
    const store = createMemoryGraphStore();
    await expect(store.upsertNodes('ns', [node('a'), node('')])).rejects.toThrow(ValidationError);
    expect(await store.getNode('ns', 'a')).toBeNull();
    await store.upsertNodes('ns', [node('a'), node('b')]);
    await expect(store.upsertEdges('ns', [edge('a', 'b'), edge('a', 'b', 0)])).rejects.toThrow(
      ValidationError,
    );
    expect(await store.neighbors('ns', 'a', { depth: 1 })).toEqual([]);
  });

  it('reports the strongest of several shortest paths', async () => {
    const store = createMemoryGraphStore();
    await store.upsertNodes(
      'ns',
      ['s', 'weak', 'strong', 'target'].map((id) => node(id)),
    );
    await store.upsertEdges('ns', [
      edge('s', 'weak', 0.9, 'VIA_WEAK'),
      edge('weak', 'target', 0.1, 'FROM_WEAK'),
      edge('s', 'strong', 0.5, 'VIA_STRONG'),
      edge('strong', 'target', 0.8, 'FROM_STRONG'),
    ]);
    const found = await store.neighbors('ns', 's', { depth: 2, direction: 'out' });
    const target = found.find((neighbor) => neighbor.node.id === 'target');
    expect(target?.depth).toBe(2);
    expect(target?.edgeType).toBe('FROM_STRONG');
    expect(target?.weight).toBeCloseTo(0.4, 10);
  });

  it('orders each depth by weight, then id, and cuts at limit', async () => {
    const store = createMemoryGraphStore();
    await store.upsertNodes(
      'ns',
      ['s', 'b', 'a', 'c', 'far'].map((id) => node(id)),
    );
    await store.upsertEdges('ns', [
      edge('s', 'b', 0.5),
      edge('s', 'a', 0.5),
      edge('s', 'c', 0.9),
      edge('a', 'far', 1),
    ]);
    const all = await store.neighbors('ns', 's', { depth: 2 });
    expect(all.map((neighbor) => neighbor.node.id)).toEqual(['c', 'a', 'b', 'far']);
    const two = await store.neighbors('ns', 's', { depth: 2, limit: 2 });
    expect(two.map((neighbor) => neighbor.node.id)).toEqual(['c', 'a']);
  });

  it('neither returns nor walks through nodes that are not stored', async () => {
    const store = createMemoryGraphStore();
    await store.upsertNodes('ns', [node('a'), node('c')]);
    await store.upsertEdges('ns', [edge('a', 'ghost'), edge('ghost', 'c')]);
    expect(await store.neighbors('ns', 'a', { depth: 3 })).toEqual([]);
    await store.upsertNodes('ns', [node('ghost')]);
    const found = await store.neighbors('ns', 'a', { depth: 3 });
    expect(found.map((neighbor) => `${neighbor.node.id}@${neighbor.depth}`)).toEqual([
      'ghost@1',
      'c@2',
    ]);
  });

  it('ignores self-loops and counts a node listed twice for deletion once', async () => {
    const store = createMemoryGraphStore();
    await store.upsertNodes('ns', [node('a'), node('b')]);
    await store.upsertEdges('ns', [edge('a', 'a'), edge('a', 'b')]);
    const found = await store.neighbors('ns', 'a', { depth: 2 });
    expect(found.map((neighbor) => neighbor.node.id)).toEqual(['b']);
    expect(await store.deleteNodes('ns', ['a', 'a'])).toBe(1);
    expect(await store.neighbors('ns', 'b', { depth: 1 })).toEqual([]);
  });

  it('keeps stored nodes safe from changes to the objects passed in or handed out', async () => {
    const store = createMemoryGraphStore();
    const properties: Record<string, string> = { title: 'Handbook' };
    const input = { id: 'a', type: 'document', properties };
    await store.upsertNodes('ns', [input]);
    properties['title'] = 'changed';
    input.type = 'changed';
    const stored = await store.getNode('ns', 'a');
    expect(stored).toEqual({ id: 'a', type: 'document', properties: { title: 'Handbook' } });
    expect(Object.isFrozen(stored)).toBe(true);
    expect(Object.isFrozen(stored?.properties)).toBe(true);
  });
});
