import type { CallOptions, Metadata } from './common.js';

/** A node of the knowledge graph (a document, a chunk, an entity, a message). */
export interface GraphNode {
  /** Unique id within the namespace. */
  readonly id: string;
  /** Node kind, e.g. `document`, `chunk`, `entity`. */
  readonly type: string;
  /** Properties to show and filter on. */
  readonly properties: Metadata;
}

/** A directed, typed, weighted edge. */
export interface GraphEdge {
  /** Source node id. */
  readonly from: string;
  /** Target node id. */
  readonly to: string;
  /** Relationship type, e.g. `CITES`, `DERIVED_FROM`, `RELATES_TO`. */
  readonly type: string;
  /** Strength in (0, 1]; 1 when unweighted. */
  readonly weight: number;
}

/** A node reached by a traversal. */
export interface GraphNeighbor {
  /** The node reached. */
  readonly node: GraphNode;
  /** Number of edges on the shortest path from the start node (1 = direct neighbour). */
  readonly depth: number;
  /** Type of the last edge on that path. */
  readonly edgeType: string;
  /** Product of edge weights along that path. */
  readonly weight: number;
}

/** Options of a traversal. */
export interface TraverseOptions extends CallOptions {
  /** Maximum path length (1 = direct neighbours). */
  readonly depth: number;
  /** Only follow edges of these types (all when omitted). */
  readonly edgeTypes?: readonly string[] | undefined;
  /** Follow edges out of a node, into it, or both (default `both`). */
  readonly direction?: 'out' | 'in' | 'both' | undefined;
  /** Most nodes to return, nearest first. */
  readonly limit?: number | undefined;
}

/** Stores nodes and edges and walks them. Scoped to a namespace like the vector store. */
export interface GraphStore {
  /** Adapter name, for events and errors. */
  readonly name: string;
  /** Port contract version this adapter implements. */
  readonly specificationVersion: 'v1';
  /** Inserts or replaces nodes by id. */
  upsertNodes(namespace: string, nodes: readonly GraphNode[], options?: CallOptions): Promise<void>;
  /** Inserts edges; an edge with the same from, to and type replaces the earlier one. */
  upsertEdges(namespace: string, edges: readonly GraphEdge[], options?: CallOptions): Promise<void>;
  /** A node by id, or null. */
  getNode(namespace: string, id: string, options?: CallOptions): Promise<GraphNode | null>;
  /** Removes nodes and every edge touching them; returns how many nodes were removed. */
  deleteNodes(namespace: string, ids: readonly string[], options?: CallOptions): Promise<number>;
  /** Nodes reachable from `nodeId` within the options' depth, nearest first (start excluded). */
  neighbors(namespace: string, nodeId: string, options: TraverseOptions): Promise<GraphNeighbor[]>;
}
