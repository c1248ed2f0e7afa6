import { AbortError, throwIfAborted, ValidationError } from '../errors/index.js';
import type { EmbeddingProvider } from '../ports/embedding-provider.js';
import type { KeywordIndex } from '../ports/keyword-index.js';
import type { Tokenizer } from '../ports/tokenizer.js';
import type { VectorMatch, VectorStore } from '../ports/vector-store.js';
import { documentSchema, documentsSchema, parseInput, type IngestProgress } from '../validate.js';
import { takesChunkAnalyses, type EmbedderRecipe } from '../text/chunk-analysis.js';
import type { LanguageSetting } from '../text/language-detection.js';
import type { IngestDocument, IngestResult, RejectedDocument } from '../types.js';
import { describeIssues, safeParse } from '../util/schema.js';
import { ulid } from '../util/ids.js';
import type { Chunker } from './chunkers.js';
import type { GraphDocument, GraphIndexer, GraphSnapshot } from './graph.js';
import {
  embedAll,
  fromWire,
  indexTexts,
  prepareDocuments,
  type PreparedGroup,
  type PrepareJob,
  type PreparedWire,
  shareAnalysis,
  type SharedAnalysis,
} from './prepare.js';

export { chunkId } from './prepare.js';

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
  /** Cuts each document into chunks (default: `tokenChunker()`). */
  readonly chunker?: Chunker | undefined;
  readonly onProgress?: ((progress: IngestProgress) => void) | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Index the valid documents and report the others, instead of refusing the batch. */
  readonly partial?: boolean | undefined;
  /**
   * Prepares groups off the calling thread (an ingest worker pool); omitted: every group is
   * prepared on the calling thread. Only for the default chunker and tokenizer and a hashing
   * embedder: the workers know them by their settings.
   */
  readonly preparer?: GroupPreparer | undefined;
  /**
   * With a `preparer`: the settings of `deps.embedder` when it is a hashing embedder made by
   * `createHashingEmbedder` (`embedderRecipe`), which the workers build it from; omitted: the
   * engine's default hashing embedder.
   */
  readonly embedder?: EmbedderRecipe | undefined;
  /**
   * The language of the engine's default keyword index, when `deps.keywordIndex` is it: the
   * preparer then computes the chunks' keyword terms too. Omitted: the index analyses texts.
   */
  readonly keywordLanguage?: LanguageSetting | undefined;
  /**
   * The graph indexer's term settings, when there is a graph: the preparer then counts the
   * chunks' terms too. Omitted: the graph builder counts them.
   */
  readonly graphTerms?: { readonly characters: number; readonly minLength: number } | undefined;
}

/** Prepares groups of documents elsewhere (worker threads), several at once. */
export interface GroupPreparer {
  /** Groups it prepares at once. */
  readonly concurrency: number;
  /** The prepared group, or a rejection (the group is then prepared on the calling thread). */
  prepare(job: PrepareJob): Promise<PreparedWire>;
}

// Documents chunked, embedded and indexed together: bounds memory, gives progress steps, and
// each group costs one stale-chunk delete per store.
const DOCUMENTS_PER_GROUP = 256;

/** Validates a whole batch before anything is stored; names the bad document and field. */
export function validateDocuments(docs: unknown, maxDocumentLength: number): IngestDocument[] {
  const batch = parseInput(documentsSchema(), docs, 'documents');
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

/**
 * Splits a batch into the documents `validateDocuments` would accept and the others, each with
 * its reason: the same checks, one document at a time. A later document with an id already
 * taken is the one rejected. Throws only when `docs` is not an array.
 */
export function partitionDocuments(
  docs: unknown,
  maxDocumentLength: number,
): { accepted: IngestDocument[]; rejected: RejectedDocument[] } {
  if (!Array.isArray(docs)) {
    throw new ValidationError('Invalid documents: must be an array', [
      { path: '', message: 'must be an array' },
    ]);
  }
  const accepted: IngestDocument[] = [];
  const rejected: RejectedDocument[] = [];
  const seen = new Map<string, number>();
  docs.forEach((doc: unknown, index) => {
    const raw = (doc as { id?: unknown } | null)?.id;
    const id = typeof raw === 'string' ? raw.slice(0, 256) : undefined;
    const reject = (issues: { path: string; message: string }[]): void => {
      rejected.push({ index, id, reason: describeIssues(issues), issues });
    };
    const parsed = safeParse(documentSchema(), doc);
    if (!parsed.success) {
      reject(parsed.issues.map((issue) => ({ ...issue, path: joinPath(index, issue.path) })));
      return;
    }
    const document = parsed.data;
    const first = seen.get(document.id);
    if (first !== undefined) {
      reject([{ path: `${index}.id`, message: `duplicate id (document ${first} has it)` }]);
      return;
    }
    if (document.text.length > maxDocumentLength) {
      reject([
        { path: `${index}.text`, message: `must be at most ${maxDocumentLength} characters` },
      ]);
      return;
    }
    seen.set(document.id, index);
    accepted.push(document);
  });
  return { accepted, rejected };
}

function joinPath(index: number, path: string): string {
  return path === '' || path === '(root)' ? String(index) : `${index}.${path}`;
}

/** What a group of documents held before this call wrote it, to put back on failure. */
interface GroupUndo {
  readonly documentIds: string[];
  /** Their chunks in the vector store (and, rebuilt from the same metadata, the keyword index). */
  readonly chunks: VectorMatch[];
  /** Their graph, when there is one. */
  readonly graph: GraphSnapshot | undefined;
  /** What the graph write was given. */
  readonly written: GraphDocument[];
  /** Every graph node the write wrote (or was about to). */
  readonly journal: Set<string>;
}

/**
 * Every chunk the vector store holds of these documents: a query filtered on them, as many
 * results as the namespace has records (a filter this selective makes stores search exactly).
 */
async function storedChunks(
  vectorStore: VectorStore,
  namespace: string,
  documentIds: readonly string[],
  probe: Float32Array | undefined,
  signal: AbortSignal | undefined,
): Promise<VectorMatch[]> {
  if (probe === undefined) return [];
  const total = await vectorStore.count(namespace, { signal });
  if (total === 0) return [];
  return vectorStore.query(namespace, probe, {
    k: total,
    filter: { documentId: { $in: [...documentIds] } },
    signal,
  });
}

/**
 * Puts a group back as it was before this call: removes the chunks of this call's revision from
 * both stores, writes the previous chunks again (re-embedded from their stored text) and
 * restores the graph. Not cancellable: it runs because something already failed.
 */
async function undoGroup(
  deps: IngestDeps,
  namespace: string,
  revision: string,
  undo: GroupUndo,
): Promise<void> {
  const mine = { filter: { documentId: { $in: undo.documentIds }, revision } };
  await deps.vectorStore.delete(namespace, mine);
  await deps.keywordIndex.delete(namespace, mine);
  if (undo.chunks.length > 0) {
    const texts = undo.chunks.map(({ metadata }) =>
      indexTexts(
        typeof metadata.title === 'string' ? metadata.title : undefined,
        typeof metadata.section === 'string' ? metadata.section : undefined,
        typeof metadata.text === 'string' ? metadata.text : '',
      ),
    );
    const vectors = await embedAll(
      deps.embedder,
      texts.map((text) => text.indexText),
      undefined,
    );
    await deps.vectorStore.upsert(
      namespace,
      undo.chunks.map((chunk, index) => ({
        id: chunk.id,
        vector: vectors[index]!,
        metadata: chunk.metadata,
      })),
    );
    await deps.keywordIndex.add(
      namespace,
      undo.chunks.map((chunk, index) => ({
        id: chunk.id,
        text: texts[index]!.keywordText,
        metadata: chunk.metadata,
      })),
    );
  }
  if (undo.graph) {
    await deps.graphIndexer?.restore(namespace, undo.graph, undo.written, undo.journal);
  }
}

/**
 * Chunks, embeds and indexes documents; idempotent per document id. A re-ingested document's
 * chunks are replaced in place (same ids, a new `revision`) and its surplus old chunks (an
 * older revision) removed afterwards, so it is never missing from the index meanwhile.
 *
 * All or nothing across the vector store, keyword index and graph: when a store fails, every
 * document of the call is put back as it was (new ones removed, re-ingested ones restored to
 * their previous chunks) before the error is thrown. Aborting keeps the groups of documents
 * already done and puts back only the group in progress.
 */
export async function ingestDocuments(
  deps: IngestDeps,
  docs: unknown,
  settings: IngestSettings,
): Promise<IngestResult> {
  const started = performance.now();
  let batch: IngestDocument[];
  let rejected: RejectedDocument[] = [];
  if (settings.partial) {
    ({ accepted: batch, rejected } = partitionDocuments(docs, settings.maxDocumentLength));
  } else {
    batch = validateDocuments(docs, settings.maxDocumentLength);
  }
  const { signal, namespace } = settings;
  // Every chunk written by this call carries its revision; afterwards, chunks of the same
  // documents with another revision are the stale ones.
  const revision = ulid();
  let chunksDone = 0;
  let removedChunks = 0;
  const done: GroupUndo[] = [];
  const groups: IngestDocument[][] = [];
  for (let start = 0; start < batch.length; start += DOCUMENTS_PER_GROUP) {
    groups.push(batch.slice(start, start + DOCUMENTS_PER_GROUP));
  }
  // One analysis of each chunk for the engine's own hashing embedder, default keyword index
  // (language 'auto') and graph, those of them this ingest writes to (`shareAnalysis`).
  const embeds = takesChunkAnalyses(deps.embedder);
  const keyword = settings.keywordLanguage === 'auto';
  const shared: SharedAnalysis | undefined =
    embeds || keyword || settings.graphTerms !== undefined
      ? { keyword, graph: settings.graphTerms }
      : undefined;
  const prepareHere = async (group: IngestDocument[]): Promise<PreparedGroup> => {
    let prepared;
    try {
      prepared = await prepareDocuments(group, revision, settings, deps.tokenizer);
    } catch (error) {
      // A chunker that fails on a later group must not leave the earlier groups written.
      await undoAll(deps, namespace, revision, [...done].reverse());
      throw error;
    }
    const chunks = shared ? shareAnalysis(prepared, shared) : undefined;
    const texts = prepared.flatMap((entry) => entry.chunks.map((chunk) => chunk.indexText));
    const analyse = embeds ? chunks?.analyse : undefined;
    const vectors = await embedAll(deps.embedder, texts, signal, analyse);
    return { documents: chunks?.documents() ?? prepared, vectors };
  };
  const ahead = preparedAhead(groups, revision, settings, deps.tokenizer.name);
  let documentsDone = 0;
  for (const [index, group] of groups.entries()) {
    throwIfAborted(signal);
    const prepared = (await ahead?.take(index)) ?? (await prepareHere(group));
    const perDocument = prepared.documents;
    const chunks = perDocument.flatMap((entry) => entry.chunks);
    const { vectors } = prepared;
    throwIfAborted(signal);
    const documentIds = group.map((doc) => doc.id);
    const written = perDocument.map((entry) => ({
      doc: entry.doc,
      chunks: entry.chunks.map((chunk) => ({
        id: chunk.id,
        text: chunk.indexText,
        ...(chunk.graphTerms === undefined ? {} : { terms: chunk.graphTerms }),
      })),
    }));
    // Read before the first write: what to put back if a write fails.
    const undo: GroupUndo = {
      documentIds,
      chunks: await storedChunks(deps.vectorStore, namespace, documentIds, vectors[0], signal),
      graph: await deps.graphIndexer?.snapshot(namespace, documentIds, { signal }),
      written,
      journal: new Set(),
    };
    try {
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
          chunks.map((chunk) => ({
            id: chunk.id,
            text: chunk.keywordText,
            metadata: chunk.metadata,
            ...(chunk.keywordTerms === undefined ? {} : { terms: chunk.keywordTerms }),
          })),
        );
      }
      await deps.graphIndexer?.index(namespace, written, { signal, journal: undo.journal });
      const stale = { filter: { documentId: { $in: documentIds }, revision: { $ne: revision } } };
      // When the store was read before the write and held no chunk of these documents
      // (`undo.chunks`), it holds none of another revision now: it is not searched for them (a
      // filtered delete, which a store may answer by a scan). The keyword index is asked
      // regardless.
      if (vectors[0] === undefined || undo.chunks.length > 0) {
        removedChunks += await deps.vectorStore.delete(namespace, stale);
      }
      await deps.keywordIndex.delete(namespace, stale);
    } catch (error) {
      // An abort keeps the groups already done; any other failure undoes the whole call.
      const undoing = AbortError.isInstance(error) || signal?.aborted ? [undo] : [...done, undo];
      await undoAll(deps, namespace, revision, undoing.reverse());
      throw error;
    }
    done.push(undo);
    chunksDone += chunks.length;
    documentsDone += group.length;
    settings.onProgress?.({
      documentsDone,
      documentsTotal: batch.length,
      chunksDone,
    });
  }
  return {
    documents: batch.length,
    chunks: chunksDone,
    removedChunks,
    durationMs: performance.now() - started,
    rejected,
  };
}

/**
 * The groups prepared by `settings.preparer`, each asked for a few groups before it is needed
 * (as many at once as the preparer runs), so that the workers prepare while the calling thread
 * indexes. `undefined` when there is no preparer or a single group (starting workers for it
 * would cost more than it saves).
 */
function preparedAhead(
  groups: readonly IngestDocument[][],
  revision: string,
  settings: IngestSettings,
  tokenizer: string,
): { take(index: number): Promise<PreparedGroup | undefined> } | undefined {
  const { preparer } = settings;
  if (!preparer || preparer.concurrency < 1 || groups.length < 2) return undefined;
  const pending = new Map<number, Promise<PreparedGroup | undefined>>();
  let next = 0;
  const ask = (index: number): void => {
    const documents = groups[index]!;
    const job: PrepareJob = {
      documents,
      revision,
      chunkSize: settings.chunkSize,
      chunkOverlap: settings.chunkOverlap,
      tokenizer,
      embedder: settings.embedder,
      keywordLanguage: settings.keywordLanguage,
      graphTerms: settings.graphTerms,
    };
    // A failure (a worker's error or crash) answers `undefined`: the group is then prepared on
    // the calling thread, which throws the very error the single-thread path throws.
    pending.set(
      index,
      preparer.prepare(job).then(
        (wire) =>
          fitsGroup(documents, wire) ? fromWire(documents, wire, settings.graphTerms) : undefined,
        () => undefined,
      ),
    );
  };
  return {
    take(index) {
      // Keep `concurrency` groups in the preparer beyond the one taken.
      while (next < groups.length && next <= index + preparer.concurrency) ask(next++);
      const prepared = pending.get(index) ?? Promise.resolve(undefined);
      pending.delete(index);
      return prepared;
    },
  };
}

/** Whether a prepared group answers its documents: one chunk list each, a vector per chunk. */
function fitsGroup(documents: readonly IngestDocument[], wire: PreparedWire): boolean {
  if (wire.chunks.length !== documents.length || wire.dimensions < 1) return false;
  const chunks = wire.chunks.reduce((sum, list) => sum + list.length, 0);
  if (wire.keywordTerms !== undefined && wire.keywordTerms.length !== chunks) return false;
  if (wire.graphTerms !== undefined && wire.graphTerms.length !== chunks) return false;
  return wire.vectors.length === chunks * wire.dimensions;
}

/**
 * Undoes groups, latest first. Best effort: when putting one back fails too (the store is
 * down), the others are still tried and the caller throws the original error.
 */
async function undoAll(
  deps: IngestDeps,
  namespace: string,
  revision: string,
  groups: readonly GroupUndo[],
): Promise<void> {
  for (const group of groups) {
    try {
      await undoGroup(deps, namespace, revision, group);
    } catch {
      // The original failure is what the caller reports.
    }
  }
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
