/**
 * An engine's knowledge operations: ingesting and deleting documents (the query caches are
 * emptied after each), searching them without generation, and finding past learning
 * trajectories like a query.
 */
import type { ResolvedConfig } from '../config.js';
import type { EngineEmitter } from '../events.js';
import { deleteDocuments, ingestDocuments } from '../ingest/ingest.js';
import { retrieve } from '../pipeline/retrieve.js';
import { planRetrieval, retrievalOptions } from '../pipeline/route.js';
import { toSearchHits } from '../pipeline/turn/sources.js';
import type { TrajectoryRecord } from '../ports/chat-records.js';
import type { Tokenizer } from '../ports/tokenizer.js';
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
      const result = await ingestDocuments(deps, docs, {
        namespace: resolved.namespace,
        chunkSize: resolved.chunking.chunkSize,
        chunkOverlap: resolved.chunking.chunkOverlap,
        chunker: resolved.chunking.chunker,
        maxDocumentLength: resolved.limits.maxDocumentLength,
        onProgress: parsed.onProgress,
        signal: parsed.signal,
        partial: parsed.partial === true,
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
