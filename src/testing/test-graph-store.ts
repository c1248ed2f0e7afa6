import { afterEach, beforeEach, describe, expect, it } from './runner.js';
import type { GraphEdge, GraphNode, GraphStore } from '../ports/graph-store.js';
import {
  abortedSignal,
  expectErrorCode,
  titled,
  uniqueName,
  type SkipReasons,
  type SuiteOptions,
} from './shared.js';

/** Parts of the `GraphStore` contract an adapter may lack (see {@link SkipReasons}). */
export type GraphStoreCapability = 'validation' | 'abort';

/** Options of {@link testGraphStore}. */
export interface GraphStoreSuiteOptions extends SuiteOptions<GraphStore> {
  /** Prefix of the namespaces the tests create, one fresh namespace per test (default `cortexis_test`). */
  readonly namespacePrefix?: string | undefined;
  /** Capabilities the adapter lacks, with the reason printed in the skipped tests' titles. */
  readonly skip?: SkipReasons<GraphStoreCapability> | undefined;
}

const node = (
  id: string,
  type = 'entity',
  properties: GraphNode['properties'] = {},
): GraphNode => ({
  id,
  type,
  properties,
});
const edge = (from: string, to: string, type = 'RELATES_TO', weight = 1): GraphEdge => ({
  from,
  to,
  type,
  weight,
});

/**
 * Registers a `describe` block checking a `GraphStore` against the port contract: nodes
 * by id (replace, get, delete with count and incident edges), edge identity (from, to,
 * type), breadth-first traversal (shortest depth, nearest first, start excluded, cycles,
 * depth, direction, edge types, limit, weight = product of edge weights), namespace
 * isolation, rejection of bad input and of aborted calls.
 */
export function testGraphStore(options: GraphStoreSuiteOptions): void {
  const prefix = options.namespacePrefix ?? 'cortexis_test';
  const skip = options.skip ?? {};

  describe(options.title ?? 'GraphStore conformance', () => {
    let store: GraphStore;
    let namespace: string;

    beforeEach(async () => {
      store = await options.create();
      namespace = uniqueName(prefix);
    });

    afterEach(async () => {
      await options.destroy?.(store);
    });

    /** Neighbour ids with their depth, in the order returned. */
    async function walk(
      start: string,
      traverse: Parameters<GraphStore['neighbors']>[2],
    ): Promise<string[]> {
      const found = await store.neighbors(namespace, start, traverse);
      return found.map((neighbor) => `${neighbor.node.id}@${neighbor.depth}`);
    }

    /** a → b → c → d, plus a → e; weights 0.5 along the chain. */
    async function chain(): Promise<void> {
      await store.upsertNodes(
        namespace,
        ['a', 'b', 'c', 'd', 'e'].map((id) => node(id)),
      );
      await store.upsertEdges(namespace, [
        edge('a', 'b', 'NEXT', 0.5),
        edge('b', 'c', 'NEXT', 0.5),
        edge('c', 'd', 'NEXT', 0.5),
        edge('a', 'e', 'CITES', 0.8),
      ]);
    }

    it('declares its name and specification version', () => {
      expect(typeof store.name).toBe('string');
      expect(store.name.length).toBeGreaterThan(0);
      expect(store.specificationVersion).toBe('v1');
    });

    it('stores nodes, replaces them by id and returns null for unknown ids', async () => {
      await store.upsertNodes(namespace, [
        node('doc1', 'document', { title: 'Handbook', pages: 12 }),
        node('chunk1', 'chunk'),
      ]);
      expect(await store.getNode(namespace, 'doc1')).toEqual(
        node('doc1', 'document', { title: 'Handbook', pages: 12 }),
      );
      await store.upsertNodes(namespace, [node('doc1', 'document', { title: 'Handbook v2' })]);
      expect(await store.getNode(namespace, 'doc1')).toEqual(
        node('doc1', 'document', { title: 'Handbook v2' }),
      );
      expect(await store.getNode(namespace, 'missing')).toBeNull();
    });

    it('returns direct neighbours at depth 1 with edge type and weight, start excluded', async () => {
      await chain();
      const found = await store.neighbors(namespace, 'a', { depth: 1 });
      const byId = Object.fromEntries(found.map((neighbor) => [neighbor.node.id, neighbor]));
      expect(Object.keys(byId).sort()).toEqual(['b', 'e']);
      expect(byId['b']).toMatchObject({ depth: 1, edgeType: 'NEXT', node: node('b') });
      expect(byId['b']!.weight).toBeCloseTo(0.5, 6);
      expect(byId['e']).toMatchObject({ depth: 1, edgeType: 'CITES' });
      expect(byId['e']!.weight).toBeCloseTo(0.8, 6);
    });

    it('walks up to depth, nearest first, with the product of edge weights', async () => {
      await chain();
      const found = await store.neighbors(namespace, 'a', { depth: 3, direction: 'out' });
      expect(found.map((neighbor) => neighbor.node.id).sort()).toEqual(['b', 'c', 'd', 'e']);
      const depths = found.map((neighbor) => neighbor.depth);
      expect(depths).toEqual([...depths].sort((x, y) => x - y));
      const d = found.find((neighbor) => neighbor.node.id === 'd');
      expect(d?.depth).toBe(3);
      expect(d?.edgeType).toBe('NEXT');
      expect(d?.weight).toBeCloseTo(0.125, 6);
      expect(await walk('a', { depth: 2, direction: 'out' })).not.toContain('d@3');
    });

    it('reports a node at its shortest depth and does not loop on cycles', async () => {
      await store.upsertNodes(
        namespace,
        ['a', 'b', 'c'].map((id) => node(id)),
      );
      await store.upsertEdges(namespace, [
        edge('a', 'b'),
        edge('b', 'c'),
        edge('c', 'a'),
        edge('a', 'c'),
      ]);
      const found = await walk('a', { depth: 5, direction: 'out' });
      expect([...found].sort()).toEqual(['b@1', 'c@1']);
    });

    it("follows edges by direction: 'out', 'in' or 'both' (the default)", async () => {
      await chain();
      expect((await walk('b', { depth: 1, direction: 'out' })).sort()).toEqual(['c@1']);
      expect((await walk('b', { depth: 1, direction: 'in' })).sort()).toEqual(['a@1']);
      expect((await walk('b', { depth: 1, direction: 'both' })).sort()).toEqual(['a@1', 'c@1']);
      expect((await walk('b', { depth: 1 })).sort()).toEqual(['a@1', 'c@1']);
      expect((await walk('d', { depth: 2, direction: 'in' })).sort()).toEqual(['b@2', 'c@1']);
    });

    it('follows only the given edge types', async () => {
      await chain();
      expect(await walk('a', { depth: 3, edgeTypes: ['CITES'] })).toEqual(['e@1']);
      expect((await walk('a', { depth: 2, edgeTypes: ['NEXT'] })).sort()).toEqual(['b@1', 'c@2']);
      expect(await walk('a', { depth: 3, edgeTypes: ['UNKNOWN'] })).toEqual([]);
    });

    it('returns at most limit nodes, the nearest ones', async () => {
      await chain();
      const found = await store.neighbors(namespace, 'a', { depth: 3, direction: 'out', limit: 2 });
      expect(found.map((neighbor) => neighbor.node.id).sort()).toEqual(['b', 'e']);
      const three = await store.neighbors(namespace, 'a', { depth: 3, direction: 'out', limit: 3 });
      expect(three.map((neighbor) => `${neighbor.node.id}@${neighbor.depth}`)).toContain('c@2');
    });

    it('gives no neighbours for an unknown or isolated start node', async () => {
      await store.upsertNodes(namespace, [node('lonely')]);
      expect(await store.neighbors(namespace, 'lonely', { depth: 2 })).toEqual([]);
      expect(await store.neighbors(namespace, 'missing', { depth: 2 })).toEqual([]);
    });

    it('identifies an edge by from, to and type: upserting it again replaces its weight', async () => {
      await store.upsertNodes(namespace, [node('a'), node('b')]);
      await store.upsertEdges(namespace, [edge('a', 'b', 'CITES', 0.2)]);
      await store.upsertEdges(namespace, [edge('a', 'b', 'CITES', 0.9)]);
      const found = await store.neighbors(namespace, 'a', { depth: 1, edgeTypes: ['CITES'] });
      expect(found).toHaveLength(1);
      expect(found[0]?.weight).toBeCloseTo(0.9, 6);
      await store.upsertEdges(namespace, [edge('a', 'b', 'MENTIONS', 0.4)]);
      const mentions = await store.neighbors(namespace, 'a', { depth: 1, edgeTypes: ['MENTIONS'] });
      expect(mentions.map((neighbor) => neighbor.weight)).toEqual([0.4]);
      expect(await store.neighbors(namespace, 'a', { depth: 1 })).toHaveLength(1);
    });

    it('deletes nodes with every edge touching them and returns the count', async () => {
      await chain();
      expect(await store.deleteNodes(namespace, ['b', 'missing'])).toBe(1);
      expect(await store.getNode(namespace, 'b')).toBeNull();
      expect(await walk('a', { depth: 3 })).toEqual(['e@1']);
      expect(await walk('c', { depth: 3 })).toEqual(['d@1']);
      // The edges are gone, not just hidden: a node re-created with the same id is unlinked.
      await store.upsertNodes(namespace, [node('b')]);
      expect(await walk('b', { depth: 1 })).toEqual([]);
      expect(await store.deleteNodes(namespace, ['b'])).toBe(1);
      expect(await store.deleteNodes(namespace, ['b'])).toBe(0);
    });

    it('keeps namespaces apart', async () => {
      const other = uniqueName(prefix);
      await chain();
      await store.upsertNodes(other, [node('a', 'other'), node('x')]);
      await store.upsertEdges(other, [edge('a', 'x')]);
      expect(await store.getNode(other, 'a')).toEqual(node('a', 'other'));
      expect(await store.getNode(other, 'b')).toBeNull();
      expect(await walk('a', { depth: 1, direction: 'out' })).not.toContain('x@1');
      expect(await store.deleteNodes(other, ['b', 'c'])).toBe(0);
      expect(await store.getNode(namespace, 'b')).not.toBeNull();
    });

    it.skipIf(skip.validation)(
      titled(
        'rejects depth < 1, a weight outside (0, 1] and empty ids with a validation error',
        skip.validation,
      ),
      async () => {
        await store.upsertNodes(namespace, [node('a'), node('b')]);
        for (const depth of [0, -1, 1.5]) {
          await expectErrorCode(
            () => store.neighbors(namespace, 'a', { depth }),
            'validation_error',
            `neighbors with depth ${depth}`,
          );
        }
        for (const weight of [0, -0.5, 1.5, Number.NaN]) {
          await expectErrorCode(
            () => store.upsertEdges(namespace, [edge('a', 'b', 'R', weight)]),
            'validation_error',
            `an edge of weight ${weight}`,
          );
        }
        await expectErrorCode(
          () => store.upsertNodes(namespace, [node('')]),
          'validation_error',
          'a node with an empty id',
        );
        expect(await walk('a', { depth: 1 })).toEqual([]);
      },
    );

    it.skipIf(skip.abort)(
      titled("rejects calls with an aborted signal with code 'aborted'", skip.abort),
      async () => {
        const signal = abortedSignal();
        await expectErrorCode(
          () => store.upsertNodes(namespace, [node('a')], { signal }),
          'aborted',
          'upsertNodes',
        );
        await expectErrorCode(
          () => store.upsertEdges(namespace, [edge('a', 'b')], { signal }),
          'aborted',
          'upsertEdges',
        );
        await expectErrorCode(
          () => store.getNode(namespace, 'a', { signal }),
          'aborted',
          'getNode',
        );
        await expectErrorCode(
          () => store.deleteNodes(namespace, ['a'], { signal }),
          'aborted',
          'deleteNodes',
        );
        await expectErrorCode(
          () => store.neighbors(namespace, 'a', { depth: 1, signal }),
          'aborted',
          'neighbors',
        );
        expect(await store.getNode(namespace, 'a')).toBeNull();
      },
    );
  });
}
