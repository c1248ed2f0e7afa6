/**
 * An engine's knowledge operations: ingesting and deleting documents (the query caches are
 * emptied after each), searching them without generation, and finding past learning
 * trajectories like a query.
 */
import type { ResolvedConfig } from '../config.js';
import type { EngineEmitter } from '../events.js';
import { deleteDocuments, ingestDocuments, type GroupPreparer } from '../ingest/ingest.js';
import { retrieve } from '../pipeline/retrieve.js';
import { planRetrieval, retrievalOptions } from '../pipeline/route.js';
import { toSearchHits } from '../pipeline/turn/sources.js';
import type { TrajectoryRecord } from '../ports/chat-records.js';
import type { Tokenizer } from '../ports/tokenizer.js';
import { embedderRecipe } from '../text/chunk-analysis.js';
import type {
  FindPatternsOptions,
  IngestDocument,
  IngestResult,
  SearchHit,
  SearchOptions,
} from '../types.js';
import {
  documentIdsSchema,
  findPatternsOptionsSchema,
  ingestOptionsSchema,
  parseInput,
  queryTextSchema,
  searchOptionsSchema,
  type IngestProgress,
} from '../validate.js';
import type { EngineParts } from './runtime.js';

/** Options of `engine.ingest`. */
export interface IngestOptions {
  /** Called after each group of documents is indexed. */
  readonly onProgress?: ((progress: IngestProgress) => void) | undefined;
  /** Cancels the ingestion; documents already indexed stay. */
  readonly signal?: AbortSignal | undefined;
  /**
   * `true`: index the valid documents and report each invalid one (with its reason) in
   * `rejected`. Default `false`: all or nothing, one invalid document throws a
   * `ValidationError` naming it and nothing is stored.
   */
  readonly partial?: boolean | undefined;
  /**
   * Threads that prepare documents (chunking, token counting, embedding), in Node: default the
   * machine's parallelism (`os.availableParallelism()`); on one or two cores, for fewer than
   * 8,192 documents, the calling thread (worker threads measured slower there). `1` prepares on
   * the calling thread.
   * Only the default chunker and tokenizer and a hashing embedder (the default, or one made by
   * `createHashingEmbedder`) run in worker threads; with a `chunker`, `embedder` or `tokenizer`
   * of your own, and in browsers, Deno and edge runtimes, documents are prepared on the calling
   * thread. The results are the same either way.
   */
  readonly concurrency?: number | undefined;
}

/** Documents per group (`ingest.ts`): a batch of one group is prepared on the calling thread. */
const GROUP = 256;

/** The ingest pool module, next to this one in the build (`dist/ingest-pool.js`). */
const POOL_MODULE = './ingest-pool.js';

/** Whether this runtime is Node (Deno and Bun emulate `process`; their workers differ). */
function isNode(): boolean {
  const runtime = globalThis as { process?: { versions?: { node?: string } }; Deno?: unknown };
  return (
    typeof runtime.process?.versions?.node === 'string' &&
    runtime.Deno === undefined &&
    !('Bun' in globalThis)
  );
}

/**
 * A preparer on the process's ingest worker pool, in Node; `undefined` elsewhere or when the
 * pool's module cannot be loaded (a bundle without it): documents are then prepared on the
 * calling thread. The specifier is one bundlers do not follow, so no bundle holds the pool.
 */
async function ingestPreparer(
  concurrency: number | undefined,
  documents: number,
): Promise<GroupPreparer | undefined> {
  if (!isNode()) return undefined;
  try {
    const pool = (await import(/* webpackIgnore: true */ /* @vite-ignore */ POOL_MODULE)) as {
      sharedIngestPool: () => { preparer(concurrency?: number): GroupPreparer };
      defaultIngestConcurrency: (documents: number) => number;
    };
    const preparer = pool
      .sharedIngestPool()
      .preparer(concurrency ?? pool.defaultIngestConcurrency(documents));
    return preparer.concurrency > 1 ? preparer : undefined;
  } catch {
    return undefined;
  }
}

/** What the document operations use of their engine. */
export interface DocumentOperationsOptions {
  readonly resolved: ResolvedConfig;
  readonly events: EngineEmitter;
  readonly parts: EngineParts;
  /** The tokenizer, loaded on first use. */
  readonly loadTokenizer: () => Promise<Tokenizer>;
  /** Pulls stored feedback into the learned boost when due (before a search). */
  readonly pullFeedbackIfDue: () => void;
}

/** `engine.ingest`, `deleteDocuments`, `search` and `findPatterns`. */
export function createDocumentOperations(options: DocumentOperationsOptions) {
  const { resolved, events, parts, loadTokenizer, pullFeedbackIfDue } = options;
  const { base, graphIndexer, clearQueryCaches } = parts;
  return {
    async ingest(
      docs: readonly IngestDocument[],
      options: IngestOptions = {},
    ): Promise<IngestResult> {
      const parsed = parseInput(ingestOptionsSchema(), options, 'ingest options');
      const deps = { ...base, graphIndexer, tokenizer: await loadTokenizer() };
      // A hashing embedder the host made with `createHashingEmbedder` is plain settings that
      // the workers build the same embedder from; any other embedder runs here.
      const recipe = resolved.embedder && embedderRecipe(resolved.embedder);
      const portable =
        (resolved.embedder === undefined || recipe !== undefined) &&
        resolved.tokenizer === undefined &&
        resolved.chunking.chunker === undefined;
      const preparer =
        portable && parsed.concurrency !== 1 && Array.isArray(docs) && docs.length > GROUP
          ? await ingestPreparer(parsed.concurrency, docs.length)
          : undefined;
      const result = await ingestDocuments(deps, docs, {
        namespace: resolved.namespace,
        chunkSize: resolved.chunking.chunkSize,
        chunkOverlap: resolved.chunking.chunkOverlap,
        chunker: resolved.chunking.chunker,
        maxDocumentLength: resolved.limits.maxDocumentLength,
        onProgress: parsed.onProgress,
        signal: parsed.signal,
        partial: parsed.partial === true,
        preparer,
        embedder: recipe,
        // The engine's own keyword index: the workers analyse its texts as it would.
        keywordLanguage: resolved.keywordIndex === undefined ? resolved.text.language : undefined,
        // The graph indexer's term settings (`runtime.ts`; its shortest term is the default, 4).
        graphTerms:
          graphIndexer && resolved.graph.maxTermsPerChunk > 0
            ? { characters: resolved.graph.termCharacters, minLength: 4 }
            : undefined,
      });
      clearQueryCaches();
      events.emit('metrics', {
        turnId: null,
        phase: 'ingest',
        ms: result.durationMs,
        detail: {
          documents: result.documents,
          chunks: result.chunks,
          rejected: result.rejected.length,
        },
      });
      return result;
    },

    async deleteDocuments(documentIds: readonly string[]): Promise<number> {
      const ids = parseInput(documentIdsSchema(), documentIds, 'document ids');
      const removed = await deleteDocuments(base, resolved.namespace, ids);
      await graphIndexer?.remove(resolved.namespace, ids);
      clearQueryCaches();
      return removed;
    },

    async search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
      const input = parseInput(searchOptionsSchema(), options, 'search options');
      const text = parseInput(queryTextSchema(), query, 'search query');
      pullFeedbackIfDue();
      const started = performance.now();
      const plan = await planRetrieval(base, text, {
        topK: input.k,
        searchDepth: input.searchDepth,
        signal: input.signal,
      });
      const result = await retrieve(text, base, {
        viewer: input.userId,
        ...retrievalOptions(base, {
          k: plan.k,
          maxK: plan.maxK,
          strategy: plan.strategy,
          filter: input.filter,
          signal: input.signal,
        }),
      });
      const hits = toSearchHits(result.chunks);
      events.emit('retrieval', {
        turnId: null,
        sessionId: null,
        query: text,
        ids: result.chunks.map((chunk) => chunk.chunkId),
        scores: result.chunks.map((chunk) => chunk.score),
        topScore: result.topScore,
        cacheHit: result.cacheHit,
        searchCacheHit: result.searchCacheHit,
        widened: result.widened,
        droppedForBudget: 0,
        durationMs: performance.now() - started,
      });
      return hits;
    },

    async findPatterns(
      query: string,
      options: FindPatternsOptions = {},
    ): Promise<TrajectoryRecord[]> {
      const input = parseInput(findPatternsOptionsSchema(), options, 'findPatterns options');
      const text = parseInput(queryTextSchema(), query, 'findPatterns query');
      const { userId, k, signal } = input;
      return base.learningSink.findPatterns(text, k, {
        signal,
        ...(userId === undefined ? {} : { userId }),
      });
    },
  };
}
