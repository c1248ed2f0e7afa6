/**
 * The knowledge graph ingestion builds: one node per document, per chunk and per salient term,
 * and three edge types.
 *
 * - `DERIVED_FROM`: chunk → its document (weight 1); document → the documents named by its
 *   `derivedFrom` metadata (ids or uris, comma- or whitespace-separated, or a JSON array).
 * - `CITES`: document → document, from markdown links (`[text](target)`, `[label]: target`,
 *   `[[target]]`), bare relative paths (`./a.md`, `../b/c.md`) and the `links` metadata field.
 *   A target is a document id or uri; relative paths resolve against the citing document's
 *   uri. Targets not ingested yet are remembered and linked when they arrive.
 * - `RELATES_TO`: chunk → term node, for the chunk's few most salient terms (stemmed, TF-IDF
 *   over the chunks seen so far), weighted by salience in (0, 1]. Two chunks that share a
 *   salient term are two `RELATES_TO` hops apart. A term linked to more than
 *   `maxChunksPerTerm` chunks is not salient: its node and edges are removed and it is not
 *   linked again, which bounds every term's fan-out (and the cost of traversals through it).
 *
 *
 * `buildGraph` is the pure core (it updates only the `GraphState` it is given);
 * `createGraphIndexer` writes its output to a `GraphStore`, replacing re-ingested documents.
 * The builder lives next to this file: `graph-build.ts` (`buildGraph`), `graph-links.ts`
 * (link extraction), `graph-terms.ts` (salient terms), `graph-state.ts` (its types and state).
 */
import type { CallOptions } from '../ports/common.js';
import type { GraphEdge, GraphNode, GraphStore } from '../ports/graph-store.js';
import {
  ALL_EDGE_TYPES,
  chunkNodeId,
  documentNodeId,
  EDGE_TYPES,
  termNodeId,
} from '../query/graph-model.js';
import { buildGraph } from './graph-build.js';
import {
  createGraphState,
  forgetLinksFrom,
  type GraphBuildSettings,
  type GraphDocument,
  type GraphState,
} from './graph-state.js';

export type { GraphDocument } from './graph-state.js';

/** Settings of {@link createGraphIndexer}. */
export interface GraphIndexerSettings extends GraphBuildSettings {
  /** Where the graph is written. */
  readonly graphStore: GraphStore;
  /** Builder state to continue from (default: a fresh one). */
  readonly state?: GraphState | undefined;
}

/** Options of `GraphIndexer.index`. */
export interface GraphIndexOptions extends CallOptions {
  /** Receives the id of every node the call writes, before it is written (for `restore`). */
  readonly journal?: Set<string> | undefined;
}

/** Writes the knowledge graph of ingested documents to a graph store. */
export interface GraphIndexer {
  /** The graph store written to. */
  readonly graphStore: GraphStore;
  /**
   * Writes one ingested group's nodes and edges, first removing what earlier versions of
   * these documents left (their chunk nodes and outgoing edges); links into them from other
   * documents are kept. Returns the numbers of nodes and edges written.
   */
  index(
    namespace: string,
    group: readonly GraphDocument[],
    options?: GraphIndexOptions,
  ): Promise<{ nodes: number; edges: number }>;
  /** Removes documents, their chunks and their edges; returns how many nodes were removed. */
  remove(namespace: string, documentIds: readonly string[], options?: CallOptions): Promise<number>;
  /**
   * What the graph holds of these documents now (their document and chunk nodes, the term
   * nodes their chunks relate to, every edge touching them), to put back with `restore`.
   */
  snapshot(
    namespace: string,
    documentIds: readonly string[],
    options?: CallOptions,
  ): Promise<GraphSnapshot>;
  /**
   * Undoes a failed or unwanted `index` of `written`: removes what it wrote of these documents
   * (and term nodes left without edges) and puts the snapshot back. Never aborted.
   */
  restore(
    namespace: string,
    snapshot: GraphSnapshot,
    written: readonly GraphDocument[],
    journal?: ReadonlySet<string>,
  ): Promise<void>;
}

/** The graph of some documents at one moment (see `GraphIndexer.snapshot`). */
export interface GraphSnapshot {
  /** The documents, whether the graph held them or not. */
  readonly documentIds: readonly string[];
  /** Their nodes, and the term nodes their chunks relate to. */
  readonly nodes: readonly GraphNode[];
  /** Every edge into or out of their document and chunk nodes. */
  readonly edges: readonly GraphEdge[];
  /** Builder state of these documents (link targets by uri), to put back with the graph. */
  readonly uris: readonly (readonly [string, string])[];
}

/** Chunk nodes of stored documents and the edges other documents point at them with. */
async function storedDocuments(
  graphStore: GraphStore,
  namespace: string,
  documentIds: readonly string[],
  options: CallOptions | undefined,
): Promise<{ nodeIds: string[]; incoming: GraphEdge[] }> {
  const nodeIds: string[] = [];
  const incoming: GraphEdge[] = [];
  const ids = new Set(documentIds);
  for (const documentId of documentIds) {
    const node = documentNodeId(documentId);
    if ((await graphStore.getNode(namespace, node, options)) === null) continue;
    nodeIds.push(node);
    const around = await graphStore.neighbors(namespace, node, {
      depth: 1,
      direction: 'in',
      edgeTypes: [EDGE_TYPES.cites, EDGE_TYPES.derivedFrom],
      signal: options?.signal,
    });
    for (const { node: neighbor, edgeType, weight } of around) {
      if (neighbor.type === 'chunk') nodeIds.push(neighbor.id);
      else if (neighbor.type === 'document') {
        const from = neighbor.properties.documentId;
        if (typeof from !== 'string' || !ids.has(from)) {
          incoming.push({ from: neighbor.id, to: node, type: edgeType, weight });
        }
      }
    }
  }
  return { nodeIds, incoming };
}

/**
 * Every edge into and out of `nodeId`: one traversal per direction, and with `typed` one more
 * per known edge type. A traversal reports each neighbour once, so only typed ones find a
 * second edge of another type between the same two nodes (two documents that cite and derive
 * from each other); a chunk's edges all lead to different nodes. The untyped traversal finds
 * edges of types the graph builder does not write (feedback links, for example).
 */
async function edgesAround(
  graphStore: GraphStore,
  namespace: string,
  nodeId: string,
  typed: boolean,
  options: CallOptions | undefined,
): Promise<{ edges: GraphEdge[]; neighbors: GraphNode[] }> {
  const edges: GraphEdge[] = [];
  const neighbors: GraphNode[] = [];
  const typeFilters = typed ? [undefined, ...ALL_EDGE_TYPES.map((type) => [type])] : [undefined];
  for (const direction of ['out', 'in'] as const) {
    for (const edgeTypes of typeFilters) {
      const around = await graphStore.neighbors(namespace, nodeId, {
        depth: 1,
        direction,
        ...(edgeTypes === undefined ? {} : { edgeTypes }),
        signal: options?.signal,
      });
      for (const { node, edgeType, weight } of around) {
        const [from, to] = direction === 'out' ? [nodeId, node.id] : [node.id, nodeId];
        edges.push({ from, to, type: edgeType, weight });
        neighbors.push(node);
      }
    }
  }
  return { edges, neighbors };
}

function edgeKey(edge: GraphEdge): string {
  return JSON.stringify([edge.from, edge.to, edge.type]);
}

/** A graph indexer: `buildGraph` plus the writes, with its state kept between groups. */
export function createGraphIndexer(settings: GraphIndexerSettings): GraphIndexer {
  const { graphStore } = settings;
  const state = settings.state ?? createGraphState();
  return {
    graphStore,

    async index(namespace, group, options) {
      const ids = group.map(({ doc }) => doc.id);
      const stored = await storedDocuments(graphStore, namespace, ids, options);
      const update = buildGraph(group, state, settings);
      for (const node of update.nodes) options?.journal?.add(node.id);
      const stale = [...stored.nodeIds, ...update.removedNodeIds];
      if (stale.length > 0) await graphStore.deleteNodes(namespace, stale, options);
      await graphStore.upsertNodes(namespace, update.nodes, options);
      const edges = [...update.edges, ...stored.incoming];
      await graphStore.upsertEdges(namespace, edges, options);
      return { nodes: update.nodes.length, edges: edges.length };
    },

    async remove(namespace, documentIds, options) {
      if (documentIds.length === 0) return 0;
      const stored = await storedDocuments(graphStore, namespace, documentIds, options);
      const ids = new Set(documentIds);
      for (const id of ids) state.documents.delete(id);
      for (const [uri, owner] of state.uris) if (ids.has(owner)) state.uris.delete(uri);
      forgetLinksFrom(state, ids);
      if (stored.nodeIds.length === 0) return 0;
      return graphStore.deleteNodes(namespace, stored.nodeIds, options);
    },

    async snapshot(namespace, documentIds, options) {
      const nodes = new Map<string, GraphNode>();
      const edges = new Map<string, GraphEdge>();
      for (const documentId of documentIds) {
        const documentNode = await graphStore.getNode(
          namespace,
          documentNodeId(documentId),
          options,
        );
        if (documentNode === null) continue;
        nodes.set(documentNode.id, documentNode);
        const around = await edgesAround(graphStore, namespace, documentNode.id, true, options);
        for (const edge of around.edges) edges.set(edgeKey(edge), edge);
        const chunks = around.neighbors.filter(
          (node) => node.type === 'chunk' && node.properties.documentId === documentId,
        );
        for (const chunk of chunks) {
          nodes.set(chunk.id, chunk);
          const chunkAround = await edgesAround(graphStore, namespace, chunk.id, false, options);
          for (const edge of chunkAround.edges) edges.set(edgeKey(edge), edge);
          for (const node of chunkAround.neighbors)
            if (node.type === 'term') nodes.set(node.id, node);
        }
      }
      const ids = new Set(documentIds);
      const uris = [...state.uris].filter(([, owner]) => ids.has(owner));
      return {
        documentIds: [...documentIds],
        nodes: [...nodes.values()],
        edges: [...edges.values()],
        uris,
      };
    },

    async restore(namespace, snapshot, written, journal = new Set()) {
      // What the write may have left: the documents' nodes now, and every node it wrote.
      const current = await storedDocuments(graphStore, namespace, snapshot.documentIds, undefined);
      const writtenIds = written.flatMap(({ doc, chunks }) => [
        documentNodeId(doc.id),
        ...chunks.map((chunk) => chunkNodeId(chunk.id)),
      ]);
      const terms = new Set([...journal].filter((id) => id.startsWith(termNodeId(''))));
      for (const nodeId of new Set([...current.nodeIds, ...writtenIds])) {
        const around = await graphStore.neighbors(namespace, nodeId, {
          depth: 1,
          direction: 'out',
        });
        for (const { node } of around) if (node.type === 'term') terms.add(node.id);
      }
      await graphStore.deleteNodes(namespace, [...new Set([...current.nodeIds, ...writtenIds])]);
      await graphStore.upsertNodes(namespace, snapshot.nodes);
      await graphStore.upsertEdges(namespace, snapshot.edges);
      // Term nodes the write created and nothing else relates to.
      const orphans: string[] = [];
      for (const term of terms) {
        const around = await graphStore.neighbors(namespace, term, { depth: 1, limit: 1 });
        if (around.length === 0) orphans.push(term);
      }
      if (orphans.length > 0) await graphStore.deleteNodes(namespace, orphans);
      // The builder forgets documents the graph did not hold, and takes back their old uris.
      const held = new Set(
        snapshot.nodes
          .filter((node) => node.type === 'document')
          .map((node) => node.properties.documentId),
      );
      const ids = new Set(snapshot.documentIds);
      for (const [uri, owner] of state.uris) if (ids.has(owner)) state.uris.delete(uri);
      for (const [uri, owner] of snapshot.uris) state.uris.set(uri, owner);
      const forgotten = new Set(snapshot.documentIds.filter((id) => !held.has(id)));
      for (const id of forgotten) state.documents.delete(id);
      forgetLinksFrom(state, forgotten);
    },
  };
}
