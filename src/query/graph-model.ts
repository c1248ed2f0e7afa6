/**
 * The knowledge graph's vocabulary, shared by what builds it (ingestion) and what walks it
 * (retrieval): its edge types and how node ids are formed.
 */

/** Edge types of the knowledge graph. */
export const EDGE_TYPES = {
  /** A document links to another document. */
  cites: 'CITES',
  /** A chunk comes from its document; a document from its `derivedFrom` source. */
  derivedFrom: 'DERIVED_FROM',
  /** A chunk features a salient term. */
  relatesTo: 'RELATES_TO',
} as const;

/** All edge types, for traversals that follow every kind. */
export const ALL_EDGE_TYPES: readonly string[] = Object.values(EDGE_TYPES);

/** Graph node id of a document. */
export function documentNodeId(documentId: string): string {
  return `document:${documentId}`;
}

/** Graph node id of a chunk (by its chunk id in the vector store and keyword index). */
export function chunkNodeId(chunkId: string): string {
  return `chunk:${chunkId}`;
}

/** Graph node id of a (stemmed) term. */
export function termNodeId(term: string): string {
  return `term:${term}`;
}
