/**
 * Breadth-first traversal shared by the SQL graph stores: one query per level fetches the
 * edges leaving (and/or entering) the frontier, joined to the stored node at the far end.
 * Same semantics as the in-memory graph store: each node at its shortest depth, the
 * strongest shortest path wins, results by depth, then weight (descending), then id.
 */
import type {
  GraphEdge,
  GraphNeighbor,
  GraphNode,
  TraverseOptions,
} from '../../ports/graph-store.js';
import { invalid, requireObject, requireString } from '../shared/validate.js';

/** An edge from a frontier node to a stored neighbour. */
export interface EdgeHit {
  /** The frontier node the edge touches. */
  readonly from: string;
  /** The node at the other end. */
  readonly neighbor: GraphNode;
  /** Edge type. */
  readonly type: string;
  /** Edge weight. */
  readonly weight: number;
}

/** Fetches the edges of one level: `direction` relative to the frontier nodes. */
export type ExpandLevel = (
  frontier: readonly string[],
  direction: 'out' | 'in',
  edgeTypes: readonly string[] | undefined,
) => Promise<readonly EdgeHit[]>;

interface Reached {
  readonly node: GraphNode;
  readonly edgeType: string;
  readonly weight: number;
}

/** The neighbours of `startId` (which must exist) within the options' depth. */
export async function breadthFirst(
  startId: string,
  options: TraverseOptions,
  expand: ExpandLevel,
): Promise<GraphNeighbor[]> {
  const direction = options.direction ?? 'both';
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const visited = new Set([startId]);
  const results: GraphNeighbor[] = [];
  let frontier = new Map<string, number>([[startId, 1]]);

  for (let depth = 1; depth <= options.depth && frontier.size > 0; depth++) {
    const ids = [...frontier.keys()];
    const hits: EdgeHit[] = [];
    if (direction !== 'in') hits.push(...(await expand(ids, 'out', options.edgeTypes)));
    if (direction !== 'out') hits.push(...(await expand(ids, 'in', options.edgeTypes)));
    const level = new Map<string, Reached>();
    for (const hit of hits) {
      const id = hit.neighbor.id;
      if (visited.has(id)) continue;
      const weight = (frontier.get(hit.from) ?? 0) * hit.weight;
      const known = level.get(id);
      if (!known || weight > known.weight) {
        level.set(id, { node: hit.neighbor, edgeType: hit.type, weight });
      }
    }
    const ordered = [...level.values()].sort(
      (a, b) => b.weight - a.weight || (a.node.id < b.node.id ? -1 : a.node.id > b.node.id ? 1 : 0),
    );
    frontier = new Map();
    for (const reached of ordered) {
      visited.add(reached.node.id);
      frontier.set(reached.node.id, reached.weight);
      if (results.length < limit) {
        results.push({
          node: reached.node,
          depth,
          edgeType: reached.edgeType,
          weight: reached.weight,
        });
      }
    }
    if (results.length >= limit) break;
  }
  return results;
}

/** Checks nodes for `upsertNodes`. */
export function validateNodes(nodes: readonly GraphNode[]): void {
  if (!Array.isArray(nodes)) throw invalid('nodes', 'must be an array');
  nodes.forEach((node, index) => {
    requireString(node?.id, `nodes.${index}.id`);
    requireString(node.type, `nodes.${index}.type`);
    requireObject(node.properties, `nodes.${index}.properties`);
  });
}

/** Checks edges for `upsertEdges`. */
export function validateEdges(edges: readonly GraphEdge[]): void {
  if (!Array.isArray(edges)) throw invalid('edges', 'must be an array');
  edges.forEach((edge, index) => {
    requireString(edge?.from, `edges.${index}.from`);
    requireString(edge.to, `edges.${index}.to`);
    requireString(edge.type, `edges.${index}.type`);
    if (typeof edge.weight !== 'number' || !(edge.weight > 0 && edge.weight <= 1)) {
      throw invalid(`edges.${index}.weight`, 'must be a number in (0, 1]');
    }
  });
}

/** Checks node ids for `deleteNodes`. */
export function validateIds(ids: readonly string[]): void {
  if (!Array.isArray(ids)) throw invalid('ids', 'must be an array');
  ids.forEach((id, index) => requireString(id, `ids.${index}`));
}
