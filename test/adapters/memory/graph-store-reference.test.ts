import { describe, expect, it } from 'vitest';
import { createMemoryGraphStore } from '../../../src/adapters/memory/graph-store.js';
import type { GraphEdge, GraphNeighbor, TraverseOptions } from '../../../src/ports/graph-store.js';
import { seededRandom as random } from '../../util/helpers.js';

/**
 * The traversal as the store's contract states it, written plainly: breadth first over the
 * edges in the order they were first written (outgoing, then incoming), each stored node at
 * its shortest depth by its strongest path (the first found among equal ones), each depth
 * ordered by weight then id, cut at `limit`.
 */
function reference(
  stored: ReadonlySet<string>,
  edges: readonly GraphEdge[],
  start: string,
  options: TraverseOptions,
): { id: string; depth: number; edgeType: string; weight: number }[] {
  const direction = options.direction ?? 'both';
  const types = options.edgeTypes ? new Set(options.edgeTypes) : null;
  const limit = options.limit ?? Infinity;
  // The last write of an edge (from, to, type) wins, at the place of its first write.
  const unique = new Map<string, GraphEdge>();
  for (const edge of edges) unique.set(`${edge.from}\u0000${edge.to}\u0000${edge.type}`, edge);
  const visited = new Set([start]);
  const results: { id: string; depth: number; edgeType: string; weight: number }[] = [];
  let frontier = [{ id: start, weight: 1 }];
  for (let depth = 1; depth <= options.depth && frontier.length > 0; depth++) {
    const level = new Map<
      string,
      { id: string; depth: number; edgeType: string; weight: number }
    >();
    for (const from of frontier) {
      const steps: [string, GraphEdge][] = [];
      if (direction !== 'in') {
        for (const edge of unique.values()) if (edge.from === from.id) steps.push([edge.to, edge]);
      }
      if (direction !== 'out') {
        for (const edge of unique.values()) if (edge.to === from.id) steps.push([edge.from, edge]);
      }
      for (const [id, edge] of steps) {
        if (visited.has(id) || !stored.has(id) || (types && !types.has(edge.type))) continue;
        const weight = from.weight * edge.weight;
        const known = level.get(id);
        if (!known || weight > known.weight)
          level.set(id, { id, depth, edgeType: edge.type, weight });
      }
    }
    const ordered = [...level.values()].sort(
      (a, b) => b.weight - a.weight || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
    for (const reached of ordered) {
      visited.add(reached.id);
      if (results.length < limit) results.push(reached);
    }
    if (results.length >= limit) break;
    frontier = ordered;
  }
  return results;
}

const plain = (found: readonly GraphNeighbor[]) =>
  found.map(({ node, depth, edgeType, weight }) => ({ id: node.id, depth, edgeType, weight }));

describe('memory graph store traversal', () => {
  it('walks random graphs as the plain breadth-first walk does, every option', async () => {
    const next = random(27);
    for (let graph = 0; graph < 40; graph++) {
      const store = createMemoryGraphStore();
      const ids = Array.from({ length: 12 + Math.floor(next() * 20) }, (_, index) => `n${index}`);
      // Some edges name nodes that are never stored; weights repeat so that ties occur.
      const stored = new Set(ids.filter(() => next() < 0.9));
      const edges: GraphEdge[] = [];
      for (let count = Math.floor(next() * 3 * ids.length); count > 0; count--) {
        edges.push({
          from: ids[Math.floor(next() * ids.length)]!,
          to: ids[Math.floor(next() * ids.length)]!,
          type: ['A', 'B', 'C'][Math.floor(next() * 3)]!,
          weight: [0.25, 0.5, 1][Math.floor(next() * 3)]!,
        });
      }
      await store.upsertNodes(
        'ns',
        [...stored].map((id) => ({ id, type: 't', properties: {} })),
      );
      await store.upsertEdges('ns', edges);
      for (const start of [...stored].slice(0, 6)) {
        for (const direction of ['out', 'in', 'both'] as const) {
          for (const edgeTypes of [undefined, ['A'], ['B', 'C']]) {
            for (const limit of [undefined, 3]) {
              for (const depth of [1, 2, 3]) {
                const options = { depth, direction, edgeTypes, limit };
                expect(plain(await store.neighbors('ns', start, options))).toEqual(
                  reference(stored, edges, start, options),
                );
              }
            }
          }
        }
      }
    }
  });
});
