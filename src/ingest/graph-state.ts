/**
 * What the knowledge-graph builder takes, keeps and gives: the documents and chunks of one
 * ingested group, the builder's settings, its state between groups (term statistics, known
 * documents, links waiting for their target) and the update to write to the graph store.
 */
import type { GraphEdge, GraphNode } from '../ports/graph-store.js';
import type { IngestDocument } from '../types.js';

/** A chunk as the graph builder needs it. */
export interface GraphChunk {
  /** Chunk id in the vector store and keyword index. */
  readonly id: string;
  /** Text whose terms relate it to other chunks. */
  readonly text: string;
  /**
   * Its term frequencies when computed already (an ingest worker), with the settings they were
   * computed with; used only when those equal the builder's.
   */
  readonly terms?: ChunkTerms | undefined;
}

/** A chunk's term frequencies (`termFrequencies`) and what they were computed from. */
export interface ChunkTerms {
  /** Characters of the text read (`termCharacters`). */
  readonly characters: number;
  /** Shortest term kept (`minTermLength`). */
  readonly minLength: number;
  readonly frequencies: ReadonlyMap<string, number>;
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

/** Drops the links re-ingested or removed documents were waiting to make. */
export function forgetLinksFrom(state: GraphState, documentIds: ReadonlySet<string>): void {
  if (documentIds.size === 0) return;
  for (const [key, waiting] of state.pending) {
    for (const id of documentIds) waiting.delete(id);
    if (waiting.size === 0) state.pending.delete(key);
  }
}
