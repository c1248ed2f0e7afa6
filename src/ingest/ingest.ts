import { throwIfAborted, ValidationError } from '../errors/index.js';
import type { Metadata } from '../ports/common.js';
import type { EmbeddingProvider } from '../ports/embedding-provider.js';
import type { KeywordIndex } from '../ports/keyword-index.js';
import type { Tokenizer } from '../ports/tokenizer.js';
import type { VectorStore } from '../ports/vector-store.js';
import { documentsSchema, parseInput, type IngestProgress } from '../pipeline/validate.js';
import type { IngestDocument, IngestResult } from '../types.js';
import { ulid } from '../util/ids.js';
import { chunkText } from './chunk.js';
import type { GraphIndexer } from './graph.js';

/** What ingestion writes to. */
export interface IngestDeps {
  readonly vectorStore: VectorStore;
  readonly keywordIndex: KeywordIndex;
  readonly embedder: EmbeddingProvider;
  readonly tokenizer: Tokenizer;
  /** Writes the knowledge graph of each group; omitted: no graph. */
  readonly graphIndexer?: GraphIndexer | undefined;
}

/** Ingestion settings. */
export interface IngestSettings {
  readonly namespace: string;
  readonly chunkSize: number;
  readonly chunkOverlap: number;
  readonly maxDocumentLength: number;
  readonly onProgress?: ((progress: IngestProgress) => void) | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** A chunk ready to index. */
interface PreparedChunk {
  readonly id: string;
  /** Text that is embedded and keyword-indexed: title and section, then the chunk. */
  readonly indexText: string;
  readonly metadata: Metadata;
}

// Documents chunked, embedded and indexed together: bounds memory, gives progress steps, and
// each group costs one stale-chunk delete per store.
const DOCUMENTS_PER_GROUP = 256;

/** Chunk id of a document's n-th chunk. */
export function chunkId(documentId: string, index: number): string {
  return `${documentId}#${index}`;
}

/** Validates a whole batch before anything is stored; names the bad document and field. */
export function validateDocuments(docs: unknown, maxDocumentLength: number): IngestDocument[] {
  const batch = parseInput(documentsSchema, docs, 'documents');
  const seen = new Set<string>();
  batch.forEach((doc, index) => {
    if (seen.has(doc.id)) {
      throw new ValidationError(`Invalid documents: ${index}.id: duplicate id '${doc.id}'`, [
        { path: `${index}.id`, message: `duplicate id '${doc.id}'` },
      ]);
    }
    seen.add(doc.id);
    if (doc.text.length > maxDocumentLength) {
      throw new ValidationError(
        `Invalid documents: ${index}.text: must be at most ${maxDocumentLength} characters`,
        [{ path: `${index}.text`, message: `must be at most ${maxDocumentLength} characters` }],
      );
    }
  });
  return batch;
}

function prepareChunks(
  doc: IngestDocument,
  revision: string,
  settings: IngestSettings,
  tokenizer: Tokenizer,
) {
  const pieces = chunkText(doc.text, {
    tokenizer,
    chunkSize: settings.chunkSize,
    chunkOverlap: settings.chunkOverlap,
  });
  return pieces.map((piece, index): PreparedChunk => {
    const section = piece.headingPath.join(' › ');
    const header = [doc.title, section].filter((part) => part && part.length > 0).join('\n');
    return {
      id: chunkId(doc.id, index),
      indexText: header ? `${header}\n${piece.text}` : piece.text,
      metadata: {
        ...doc.metadata,
        documentId: doc.id,
        chunkIndex: index,
        revision,
        text: piece.text,
        ...(doc.title === undefined ? {} : { title: doc.title }),
        ...(doc.uri === undefined ? {} : { uri: doc.uri }),
        ...(section ? { section } : {}),
      },
    };
  });
}

async function embedAll(
  embedder: EmbeddingProvider,
  texts: readonly string[],
  signal: AbortSignal | undefined,
): Promise<Float32Array[]> {
  const batchSize = embedder.maxBatchSize ?? 64;
  const vectors: Float32Array[] = [];
  for (let start = 0; start < texts.length; start += batchSize) {
    throwIfAborted(signal);
    vectors.push(...(await embedder.embed(texts.slice(start, start + batchSize), { signal })));
  }
  return vectors;
}

/**
 * Chunks, embeds and indexes documents; idempotent per document id. A re-ingested document's
 * chunks are replaced in place (same ids, a new `revision`) and its surplus old chunks (an
 * older revision) removed afterwards, so it is never missing from the index meanwhile.
 * Aborting keeps the documents already done.
 */
export async function ingestDocuments(
  deps: IngestDeps,
  docs: unknown,
  settings: IngestSettings,
): Promise<IngestResult> {
  const started = performance.now();
  const batch = validateDocuments(docs, settings.maxDocumentLength);
  const { signal, namespace } = settings;
  // Every chunk written by this call carries its revision; afterwards, chunks of the same
  // documents with another revision are the stale ones.
  const revision = ulid();
  let chunksDone = 0;
  let removedChunks = 0;
  for (let start = 0; start < batch.length; start += DOCUMENTS_PER_GROUP) {
    throwIfAborted(signal);
    const group = batch.slice(start, start + DOCUMENTS_PER_GROUP);
    const perDocument = group.map((doc) => ({
      doc,
      chunks: prepareChunks(doc, revision, settings, deps.tokenizer),
    }));
    const chunks = perDocument.flatMap((entry) => entry.chunks);
    const vectors = await embedAll(
      deps.embedder,
      chunks.map((chunk) => chunk.indexText),
      signal,
    );
    throwIfAborted(signal);
    if (chunks.length > 0) {
      await deps.vectorStore.upsert(
        namespace,
        chunks.map((chunk, index) => ({
          id: chunk.id,
          vector: vectors[index]!,
          metadata: chunk.metadata,
        })),
      );
      await deps.keywordIndex.add(
        namespace,
        chunks.map((chunk) => ({ id: chunk.id, text: chunk.indexText, metadata: chunk.metadata })),
      );
    }
    await deps.graphIndexer?.index(
      namespace,
      perDocument.map((entry) => ({
        doc: entry.doc,
        chunks: entry.chunks.map((chunk) => ({ id: chunk.id, text: chunk.indexText })),
      })),
      { signal },
    );
    const stale = {
      filter: { documentId: { $in: group.map((doc) => doc.id) }, revision: { $ne: revision } },
    };
    removedChunks += await deps.vectorStore.delete(namespace, stale);
    await deps.keywordIndex.delete(namespace, stale);
    chunksDone += chunks.length;
    settings.onProgress?.({
      documentsDone: start + group.length,
      documentsTotal: batch.length,
      chunksDone,
    });
  }
  return {
    documents: batch.length,
    chunks: chunksDone,
    removedChunks,
    durationMs: performance.now() - started,
  };
}

/** Removes documents' chunks from both stores; returns how many chunks were removed. */
export async function deleteDocuments(
  deps: Pick<IngestDeps, 'vectorStore' | 'keywordIndex'>,
  namespace: string,
  documentIds: readonly string[],
): Promise<number> {
  if (documentIds.length === 0) return 0;
  const target = { filter: { documentId: { $in: [...documentIds] } } };
  const removed = await deps.vectorStore.delete(namespace, target);
  await deps.keywordIndex.delete(namespace, target);
  return removed;
}
