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
 * `buildGraph` is the pure core (it updates only the `GraphState` it is given);
 * `createGraphIndexer` writes its output to a `GraphStore`, replacing re-ingested documents.
 */
import type { CallOptions } from '../ports/common.js';
import type { GraphEdge, GraphNode, GraphStore } from '../ports/graph-store.js';
import { stemmedTerms } from '../text/stem.js';
import type { IngestDocument } from '../types.js';
import {
  ALL_EDGE_TYPES,
  chunkNodeId,
  documentNodeId,
  EDGE_TYPES,
  termNodeId,
} from '../query/graph-model.js';

/** A chunk as the graph builder needs it. */
export interface GraphChunk {
  /** Chunk id in the vector store and keyword index. */
  readonly id: string;
  /** Text whose terms relate it to other chunks. */
  readonly text: string;
}

/** One ingested document and its chunks. */
export interface GraphDocument {
  /** The document as given to `ingest`. */
  readonly doc: IngestDocument;
  /** Its chunks, in order. */
  readonly chunks: readonly GraphChunk[];
}

/** Settings of the graph builder. */
export interface GraphBuildSettings {
  /** Salient terms linked per chunk (default 4; 0 disables `RELATES_TO`). */
  readonly maxTermsPerChunk?: number | undefined;
  /** A term in more chunks than this is too common to relate them (default 50). */
  readonly maxChunksPerTerm?: number | undefined;
  /** Shortest term (after stemming) considered (default 4 characters). */
  readonly minTermLength?: number | undefined;
  /**
   * Characters of each chunk read for its terms (default 300: the heading and first
   * sentences name its topic; reading whole chunks costs ingestion time for little gain).
   */
  readonly termCharacters?: number | undefined;
}

/** What the builder remembers between groups (create with `createGraphState`). */
export interface GraphState {
  /** Chunks seen so far. */
  chunkCount: number;
  /** Term → chunks seen that contain it (for IDF). */
  readonly documentFrequency: Map<string, number>;
  /** Term → chunks linked to its node. */
  readonly linked: Map<string, number>;
  /** Terms found too common; never linked again. */
  readonly blocked: Set<string>;
  /** Ids of the documents ingested. */
  readonly documents: Set<string>;
  /** Normalised uri → document id. */
  readonly uris: Map<string, string>;
  /** Unresolved link target → citing documents and edge type. */
  readonly pending: Map<string, Map<string, string>>;
}

/** A fresh, empty builder state. */
export function createGraphState(): GraphState {
  return {
    chunkCount: 0,
    documentFrequency: new Map(),
    linked: new Map(),
    blocked: new Set(),
    documents: new Set(),
    uris: new Map(),
    pending: new Map(),
  };
}

/** What to write to the graph store for one group. */
export interface GraphUpdate {
  /** Document, chunk and term nodes to upsert. */
  readonly nodes: GraphNode[];
  /** Edges to upsert (after the nodes). */
  readonly edges: GraphEdge[];
  /** Term nodes that became too common: delete them (with their edges) first. */
  readonly removedNodeIds: string[];
}

/** The engine's defaults (`config.graph`), also used when a caller passes none. */
const DEFAULTS = {
  maxTermsPerChunk: 4,
  maxChunksPerTerm: 50,
  minTermLength: 4,
  termCharacters: 300,
} as const;

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const MARKDOWN_LINK = /\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+["'(][^)]*)?\)/g;
const REFERENCE_LINK = /^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*<?(\S+?)>?(?:[ \t]+.*)?$/gm;
const WIKI_LINK = /\[\[([^\]|#\n]+)(?:[#|][^\]\n]*)?\]\]/g;
const RELATIVE_PATH = /(?:^|[\s("'`])(\.{1,2}\/[^\s)"'`\]>]+)/g;

/** Link targets written in a text: markdown, reference-style, wiki links and relative paths. */
export function extractLinks(text: string): string[] {
  const targets = new Set<string>();
  if (!text.includes('[') && !text.includes('./')) return [];
  for (const pattern of [MARKDOWN_LINK, REFERENCE_LINK, WIKI_LINK, RELATIVE_PATH]) {
    for (const match of text.matchAll(pattern)) {
      const target = match[1]?.trim();
      if (target) targets.add(target);
    }
  }
  return [...targets];
}

/** Ids or uris in a metadata value: a JSON array, or a comma/whitespace-separated list. */
export function parseReferenceList(value: unknown): string[] {
  if (typeof value !== 'string' || value.trim().length === 0) return [];
  const text = value.trim();
  if (text.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (Array.isArray(parsed)) {
        return parsed.filter((item): item is string => typeof item === 'string' && item !== '');
      }
    } catch {
      // not JSON: fall through to the list form
    }
  }
  return text.split(/[\s,]+/).filter((item) => item.length > 0);
}

/** Resolves `.` and `..` segments of a slash-separated path. */
function normalizePath(path: string): string {
  const absolute = path.startsWith('/');
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
    else if (part !== '..' || !absolute) parts.push(part);
  }
  return (absolute ? '/' : '') + parts.join('/');
}

/** A uri or path in the form lookups compare: no fragment or query, `.` and `..` resolved. */
export function normalizeUri(uri: string): string {
  const bare = uri.trim().replace(/[#?].*$/, '');
  if (SCHEME.test(bare)) return bare;
  return normalizePath(bare.replace(/\\/g, '/'));
}

/**
 * The keys a link target may be known by: as written, and resolved against the citing
 * document's uri when relative.
 */
export function linkKeys(target: string, fromUri: string | undefined): string[] {
  const bare = target.trim().replace(/[#?].*$/, '');
  if (bare.length === 0) return [];
  const keys = new Set([bare, normalizeUri(bare)]);
  if (fromUri !== undefined && !SCHEME.test(bare) && !bare.startsWith('/')) {
    if (SCHEME.test(fromUri)) {
      try {
        keys.add(new URL(bare, fromUri).href.replace(/[#?].*$/, ''));
      } catch {
        // not resolvable against this uri
      }
    } else {
      const base = normalizeUri(fromUri);
      const directory = base.includes('/') ? base.slice(0, base.lastIndexOf('/') + 1) : '';
      keys.add(normalizePath(directory + bare));
    }
  }
  keys.delete('');
  return [...keys];
}

function resolve(state: GraphState, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    if (state.documents.has(key)) return key;
    const byUri = state.uris.get(key);
    if (byUri !== undefined) return byUri;
  }
  return undefined;
}

/** Terms of a text with their frequency. */
function termFrequencies(text: string, minLength: number): Map<string, number> {
  const frequencies = new Map<string, number>();
  for (const term of stemmedTerms(text)) {
    if (term.length < minLength || /^\d+$/.test(term)) continue;
    frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
  }
  return frequencies;
}

/**
 * A chunk's salient terms, best first, with salience in (0, 1] (relative to the best):
 * `(1 + ln tf) · ln(1 + N / df)` over the chunks seen so far, blocked terms left out.
 */
export function salientTerms(
  frequencies: ReadonlyMap<string, number>,
  state: Pick<GraphState, 'chunkCount' | 'documentFrequency' | 'blocked'>,
  count: number,
): { term: string; weight: number }[] {
  if (count <= 0) return [];
  // Insertion into a short best-first list: cheaper than sorting every term.
  const top: { term: string; weight: number }[] = [];
  const better = (a: { term: string; weight: number }, b: { term: string; weight: number }) =>
    a.weight > b.weight || (a.weight === b.weight && a.term < b.term);
  for (const [term, frequency] of frequencies) {
    if (state.blocked.has(term)) continue;
    const df = state.documentFrequency.get(term) ?? 1;
    const weight = (1 + Math.log(frequency)) * Math.log(1 + state.chunkCount / df);
    if (!(weight > 0)) continue;
    if (top.length === count) {
      const last = top[count - 1]!;
      if (!(weight > last.weight || (weight === last.weight && term < last.term))) continue;
    }
    const entry = { term, weight };
    let at = Math.min(top.length, count - 1);
    while (at > 0 && better(entry, top[at - 1]!)) at--;
    top.splice(at, 0, entry);
    if (top.length > count) top.pop();
  }
  const best = top[0]?.weight ?? 1;
  return top.map(({ term, weight }) => ({ term, weight: Math.min(1, weight / best) }));
}

/** Drops the links re-ingested or removed documents were waiting to make. */
function forgetLinksFrom(state: GraphState, documentIds: ReadonlySet<string>): void {
  if (documentIds.size === 0) return;
  for (const [key, waiting] of state.pending) {
    for (const id of documentIds) waiting.delete(id);
    if (waiting.size === 0) state.pending.delete(key);
  }
}

/**
 * Nodes and edges of one ingested group; updates `state` (term statistics, known documents,
 * links waiting for their target). Deterministic for a given state and group.
 */
export function buildGraph(
  group: readonly GraphDocument[],
  state: GraphState,
  settings: GraphBuildSettings = {},
): GraphUpdate {
  const maxTerms = settings.maxTermsPerChunk ?? DEFAULTS.maxTermsPerChunk;
  const maxChunks = settings.maxChunksPerTerm ?? DEFAULTS.maxChunksPerTerm;
  const minLength = settings.minTermLength ?? DEFAULTS.minTermLength;
  const characters = settings.termCharacters ?? DEFAULTS.termCharacters;
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const removedNodeIds: string[] = [];

  // Documents first, so links inside the group resolve.
  const again = new Set(group.map(({ doc }) => doc.id).filter((id) => state.documents.has(id)));
  forgetLinksFrom(state, again);
  for (const { doc } of group) {
    state.documents.add(doc.id);
    if (doc.uri !== undefined) state.uris.set(normalizeUri(doc.uri), doc.id);
  }
  // Links that waited for a document of this group.
  for (const { doc } of group) {
    const keys = [doc.id, ...(doc.uri === undefined ? [] : [doc.uri, normalizeUri(doc.uri)])];
    for (const key of new Set(keys)) {
      const waiting = state.pending.get(key);
      if (waiting === undefined) continue;
      for (const [from, type] of waiting) {
        if (from !== doc.id) {
          edges.push({ from: documentNodeId(from), to: documentNodeId(doc.id), type, weight: 1 });
        }
      }
      state.pending.delete(key);
    }
  }

  const link = (from: IngestDocument, target: string, type: string): void => {
    const keys = linkKeys(target, from.uri);
    const found = resolve(state, keys);
    if (found === from.id) return;
    if (found !== undefined) {
      edges.push({ from: documentNodeId(from.id), to: documentNodeId(found), type, weight: 1 });
      return;
    }
    for (const key of keys) {
      let waiting = state.pending.get(key);
      if (waiting === undefined) {
        waiting = new Map();
        state.pending.set(key, waiting);
      }
      waiting.set(from.id, type);
    }
  };

  // Term statistics of the whole group before choosing salient terms.
  const chunkTerms: Map<string, number>[][] = group.map(({ chunks }) =>
    maxTerms > 0
      ? chunks.map((chunk) => termFrequencies(chunk.text.slice(0, characters), minLength))
      : [],
  );
  for (const perDocument of chunkTerms) {
    for (const frequencies of perDocument) {
      state.chunkCount++;
      for (const term of frequencies.keys()) {
        state.documentFrequency.set(term, (state.documentFrequency.get(term) ?? 0) + 1);
      }
    }
  }

  const terms = new Set<string>();
  group.forEach(({ doc, chunks }, documentIndex) => {
    const documentNode = documentNodeId(doc.id);
    nodes.push({
      id: documentNode,
      type: 'document',
      properties: {
        documentId: doc.id,
        chunkCount: chunks.length,
        ...(doc.title === undefined ? {} : { title: doc.title }),
        ...(doc.uri === undefined ? {} : { uri: doc.uri }),
      },
    });
    const linked = new Set<string>();
    for (const target of [...extractLinks(doc.text), ...parseReferenceList(doc.metadata?.links)]) {
      if (!linked.has(target)) link(doc, target, EDGE_TYPES.cites);
      linked.add(target);
    }
    for (const source of parseReferenceList(doc.metadata?.derivedFrom)) {
      link(doc, source, EDGE_TYPES.derivedFrom);
    }
    chunks.forEach((chunk, chunkIndex) => {
      const node = chunkNodeId(chunk.id);
      nodes.push({
        id: node,
        type: 'chunk',
        properties: { documentId: doc.id, chunkId: chunk.id, chunkIndex },
      });
      edges.push({ from: node, to: documentNode, type: EDGE_TYPES.derivedFrom, weight: 1 });
      const frequencies = chunkTerms[documentIndex]?.[chunkIndex];
      if (frequencies === undefined) return;
      for (const { term, weight } of salientTerms(frequencies, state, maxTerms)) {
        if ((state.documentFrequency.get(term) ?? 0) > maxChunks) {
          // Already too common within what has been seen: never salient.
          state.blocked.add(term);
          if (state.linked.has(term)) removedNodeIds.push(termNodeId(term));
          state.linked.delete(term);
          continue;
        }
        const count = (state.linked.get(term) ?? 0) + 1;
        state.linked.set(term, count);
        terms.add(term);
        edges.push({ from: node, to: termNodeId(term), type: EDGE_TYPES.relatesTo, weight });
      }
    });
  });
  for (const term of terms) {
    if (!state.blocked.has(term)) {
      nodes.push({ id: termNodeId(term), type: 'term', properties: { term } });
    }
  }
  const removed = new Set(removedNodeIds);
  return {
    nodes,
    edges: edges.filter((edge) => !removed.has(edge.to)),
    removedNodeIds: [...removed],
  };
}

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
