import { throwIfAborted } from '../../errors/index.js';
import type { CallOptions } from '../../ports/common.js';
import type {
  GraphEdge,
  GraphNeighbor,
  GraphNode,
  GraphStore,
  TraverseOptions,
} from '../../ports/graph-store.js';
import { createSecondSightCache, type SecondSightCache } from '../../util/second-sight.js';
import { decodeSnapshot, encodeSnapshot, snapshotError } from './snapshot.js';
import {
  invalid,
  requireObject,
  requireString,
  validateTraverseOptions,
} from '../shared/validate.js';

/** Settings of {@link createMemoryGraphStore}. */
export interface MemoryGraphStoreSettings {
  /** Adapter name reported in events and errors (default `memory`). */
  readonly name?: string;
}

/** The in-memory `GraphStore` plus snapshots. */
export interface MemoryGraphStore extends GraphStore {
  /** Every namespace's nodes and edges as versioned, checksummed bytes. */
  snapshot(): Uint8Array;
  /**
   * Replaces the whole content with a snapshot's. Throws `ValidationError` (path `snapshot`)
   * on corrupt or foreign bytes, leaving the store unchanged.
   */
  restore(bytes: Uint8Array): void;
}

interface Namespace {
  readonly nodes: Map<string, GraphNode>;
  /** node id → edge key → edge leaving the node. */
  readonly outgoing: Map<string, Map<string, GraphEdge>>;
  /** node id → edge key → edge entering the node. */
  readonly incoming: Map<string, Map<string, GraphEdge>>;
  /** Traversals made at least twice since the last write, by {@link traversalKey}. */
  readonly traversals: SecondSightCache<readonly GraphNeighbor[]>;
}

/**
 * Traversals kept per namespace. A turn walks from its ten best chunks, and popular chunks
 * come back turn after turn; a traversal is kept from its second time on (keeping every
 * first one costs more than the many made once give back), and any write to the namespace
 * forgets them all.
 */
const TRAVERSAL_CACHE_SIZE = 2048;

/** What a traversal's result depends on besides the graph: its start and options. */
function traversalKey(nodeId: string, options: TraverseOptions): string {
  const edgeTypes = options.edgeTypes ? JSON.stringify(options.edgeTypes) : '';
  return `${options.direction ?? 'both'}:${options.depth}:${options.limit ?? ''}:${edgeTypes}:${nodeId}`;
}

/** Forgets the namespace's traversals: the graph changed. */
function forgetTraversals(target: Namespace): void {
  target.traversals.clear();
}

function emptyNamespace(): Namespace {
  return {
    nodes: new Map(),
    outgoing: new Map(),
    incoming: new Map(),
    traversals: createSecondSightCache(TRAVERSAL_CACHE_SIZE, { forgetWithDeletes: false }),
  };
}

/** A path found by the traversal. */
interface Reached {
  readonly id: string;
  readonly depth: number;
  readonly edgeType: string;
  readonly weight: number;
}

/** Edges are identified by (from, to, type); the lengths keep the key unambiguous. */
function edgeKey(edge: Pick<GraphEdge, 'from' | 'to' | 'type'>): string {
  return `${edge.from.length}:${edge.to.length}:${edge.from}${edge.to}${edge.type}`;
}

/** Orders the paths of one BFS level: strongest first, then by id for a stable result. */
function byWeightThenId(a: Reached, b: Reached): number {
  return b.weight - a.weight || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Keeps the strongest path to `neighborId` found so far at this level (the first found among
 * equally strong ones), unless the node was reached at a smaller depth, is not stored or the
 * edge's type is not followed.
 */
function reach(
  target: Namespace,
  level: Map<string, Reached>,
  visited: ReadonlySet<string>,
  edgeTypes: ReadonlySet<string> | null,
  from: Reached,
  neighborId: string,
  edge: GraphEdge,
  depth: number,
): void {
  if (visited.has(neighborId) || !target.nodes.has(neighborId)) return;
  if (edgeTypes !== null && !edgeTypes.has(edge.type)) return;
  const weight = from.weight * edge.weight;
  const known = level.get(neighborId);
  if (known === undefined || weight > known.weight) {
    level.set(neighborId, { id: neighborId, depth, edgeType: edge.type, weight });
  }
}

/** Breadth-first traversal from a stored node (see {@link createMemoryGraphStore}). */
function traverse(target: Namespace, nodeId: string, options: TraverseOptions): GraphNeighbor[] {
  const direction = options.direction ?? 'both';
  const edgeTypes = options.edgeTypes ? new Set(options.edgeTypes) : null;
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const visited = new Set([nodeId]);
  const results: GraphNeighbor[] = [];
  let frontier: Reached[] = [{ id: nodeId, depth: 0, edgeType: '', weight: 1 }];

  // `reach` is a module function, not a closure made per level (a turn walks from ten chunks).
  for (let depth = 1; depth <= options.depth && frontier.length > 0; depth++) {
    const level = new Map<string, Reached>();
    for (const from of frontier) {
      const outgoing = direction === 'in' ? undefined : target.outgoing.get(from.id);
      if (outgoing !== undefined) {
        for (const edge of outgoing.values()) {
          reach(target, level, visited, edgeTypes, from, edge.to, edge, depth);
        }
      }
      const incoming = direction === 'out' ? undefined : target.incoming.get(from.id);
      if (incoming !== undefined) {
        for (const edge of incoming.values()) {
          reach(target, level, visited, edgeTypes, from, edge.from, edge, depth);
        }
      }
    }
    frontier = [...level.values()].sort(byWeightThenId);
    for (const reached of frontier) {
      visited.add(reached.id);
      if (results.length < limit) {
        results.push({
          node: target.nodes.get(reached.id)!,
          depth: reached.depth,
          edgeType: reached.edgeType,
          weight: reached.weight,
        });
      }
    }
    if (results.length >= limit) break;
  }
  return results;
}

/**
 * An in-memory `GraphStore`: adjacency maps per namespace, breadth-first traversal.
 *
 * Traversal reports each node at its shortest depth; when several shortest paths reach it,
 * the one with the highest weight (product of its edge weights) wins, and its last edge
 * gives `edgeType`. Results are ordered by depth, then weight (descending), then id. Edges
 * may name nodes that are not stored (yet); the traversal neither returns nor walks through
 * such nodes. Starting from an unknown node gives no neighbours. Stored nodes are frozen
 * copies, so callers cannot change stored state.
 */
export function createMemoryGraphStore(settings: MemoryGraphStoreSettings = {}): MemoryGraphStore {
  let namespaces = new Map<string, Namespace>();

  function space(namespace: string, create: true): Namespace;
  function space(namespace: string, create: false): Namespace | undefined;
  function space(namespace: string, create: boolean): Namespace | undefined {
    requireString(namespace, 'namespace');
    let found = namespaces.get(namespace);
    if (!found && create) {
      found = emptyNamespace();
      namespaces.set(namespace, found);
    }
    return found;
  }

  function link(
    index: Map<string, Map<string, GraphEdge>>,
    nodeId: string,
    key: string,
    edge: GraphEdge,
  ): void {
    let edges = index.get(nodeId);
    if (!edges) {
      edges = new Map();
      index.set(nodeId, edges);
    }
    edges.set(key, edge);
  }

  function unlink(index: Map<string, Map<string, GraphEdge>>, nodeId: string, key: string): void {
    const edges = index.get(nodeId);
    if (!edges) return;
    edges.delete(key);
    if (edges.size === 0) index.delete(nodeId);
  }

  return {
    name: settings.name ?? 'memory',
    specificationVersion: 'v1',

    async upsertNodes(namespace: string, nodes: readonly GraphNode[], options?: CallOptions) {
      throwIfAborted(options?.signal);
      if (!Array.isArray(nodes)) throw invalid('nodes', 'must be an array');
      const copies = nodes.map((node, index) => {
        const id = requireString(node?.id, `nodes.${index}.id`);
        const type = requireString(node.type, `nodes.${index}.type`);
        const properties = requireObject(node.properties, `nodes.${index}.properties`);
        return Object.freeze({ id, type, properties: Object.freeze({ ...properties }) });
      });
      const target = space(namespace, true);
      forgetTraversals(target);
      for (const node of copies) target.nodes.set(node.id, node);
    },

    async upsertEdges(namespace: string, edges: readonly GraphEdge[], options?: CallOptions) {
      throwIfAborted(options?.signal);
      if (!Array.isArray(edges)) throw invalid('edges', 'must be an array');
      const copies = edges.map((edge, index) => {
        const from = requireString(edge?.from, `edges.${index}.from`);
        const to = requireString(edge.to, `edges.${index}.to`);
        const type = requireString(edge.type, `edges.${index}.type`);
        const weight = edge.weight;
        if (typeof weight !== 'number' || !(weight > 0 && weight <= 1)) {
          throw invalid(`edges.${index}.weight`, 'must be a number in (0, 1]');
        }
        return Object.freeze({ from, to, type, weight });
      });
      const target = space(namespace, true);
      forgetTraversals(target);
      for (const edge of copies) {
        const key = edgeKey(edge);
        link(target.outgoing, edge.from, key, edge);
        link(target.incoming, edge.to, key, edge);
      }
    },

    async getNode(namespace: string, id: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(id, 'id');
      return space(namespace, false)?.nodes.get(id) ?? null;
    },

    async deleteNodes(namespace: string, ids: readonly string[], options?: CallOptions) {
      throwIfAborted(options?.signal);
      if (!Array.isArray(ids)) throw invalid('ids', 'must be an array');
      ids.forEach((id, index) => requireString(id, `ids.${index}`));
      const target = space(namespace, false);
      if (!target) return 0;
      forgetTraversals(target);
      let removed = 0;
      for (const id of new Set(ids)) {
        if (target.nodes.delete(id)) removed++;
        for (const [key, edge] of target.outgoing.get(id) ?? []) {
          unlink(target.incoming, edge.to, key);
        }
        for (const [key, edge] of target.incoming.get(id) ?? []) {
          unlink(target.outgoing, edge.from, key);
        }
        target.outgoing.delete(id);
        target.incoming.delete(id);
      }
      return removed;
    },

    async neighbors(namespace: string, nodeId: string, options: TraverseOptions) {
      throwIfAborted(options?.signal);
      requireString(nodeId, 'nodeId');
      validateTraverseOptions(options);
      const target = space(namespace, false);
      if (!target?.nodes.has(nodeId)) return [];
      const key = traversalKey(nodeId, options);
      const found = target.traversals.get(key, () => traverse(target, nodeId, options));
      // Copies of what may be kept: a caller changing its result cannot change a later one.
      return found.map((neighbor) => ({ ...neighbor }));
    },

    snapshot() {
      const entries = [...namespaces].map(([name, target]) => ({
        name,
        nodes: [...target.nodes.values()],
        edges: [...target.outgoing.values()].flatMap((edges) => [...edges.values()]),
      }));
      return encodeSnapshot('graph', { namespaces: entries });
    },

    restore(bytes: Uint8Array) {
      const { json } = decodeSnapshot(bytes, 'graph');
      if (
        typeof json !== 'object' ||
        json === null ||
        !Array.isArray((json as Record<string, unknown>)['namespaces'])
      ) {
        throw snapshotError('has no namespaces list');
      }
      const restored = new Map<string, Namespace>();
      ((json as Record<string, unknown>)['namespaces'] as unknown[]).forEach((entry, index) => {
        const record = (entry ?? {}) as Record<string, unknown>;
        const name = record['name'];
        if (typeof name !== 'string' || name.length === 0 || restored.has(name)) {
          throw snapshotError(`namespace ${index} has a missing or duplicate name`);
        }
        const nodes = record['nodes'];
        const edges = record['edges'];
        if (!Array.isArray(nodes) || !Array.isArray(edges)) {
          throw snapshotError(`namespace ${index} has no nodes or edges list`);
        }
        const target = emptyNamespace();
        try {
          nodes.forEach((node: GraphNode, at) => {
            const id = requireString(node?.id, `nodes.${at}.id`);
            const type = requireString(node.type, `nodes.${at}.type`);
            const properties = requireObject(node.properties, `nodes.${at}.properties`);
            target.nodes.set(
              id,
              Object.freeze({ id, type, properties: Object.freeze({ ...properties }) }),
            );
          });
          edges.forEach((edge: GraphEdge, at) => {
            const from = requireString(edge?.from, `edges.${at}.from`);
            const to = requireString(edge.to, `edges.${at}.to`);
            const type = requireString(edge.type, `edges.${at}.type`);
            const weight = edge.weight;
            if (typeof weight !== 'number' || !(weight > 0 && weight <= 1)) {
              throw invalid(`edges.${at}.weight`, 'must be a number in (0, 1]');
            }
            const copy = Object.freeze({ from, to, type, weight });
            const key = edgeKey(copy);
            link(target.outgoing, from, key, copy);
            link(target.incoming, to, key, copy);
          });
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          throw snapshotError(`namespace ${index}: ${message}`);
        }
        restored.set(name, target);
      });
      namespaces = restored;
    },
  };
}
