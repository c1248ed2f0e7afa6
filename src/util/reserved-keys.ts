/**
 * Chunk metadata keys the engine sets itself: validation refuses them in a document's or a
 * chunker's metadata, and the loaders never take them from a file. One list, without
 * dependencies, so the loaders' parse worker can read it without loading the validators.
 */
export const RESERVED_METADATA_KEYS = [
  'documentId',
  'chunkIndex',
  'revision',
  'text',
  'title',
  'uri',
  'section',
  // A chunk's exact token count, stored at ingest (`src/ingest/prepare.ts`) and trusted by the
  // turn's packing: a document that could set it could make its chunks look cheaper than they are.
  'tokenCount',
] as const;
