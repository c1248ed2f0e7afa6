import type { EmbeddingProvider } from './ports/embedding-provider.js';
import type { KeywordIndex } from './ports/keyword-index.js';
import type { LearningSink } from './ports/learning-sink.js';
import type { LLMProvider } from './ports/llm-provider.js';
import type { SessionStore } from './ports/session-store.js';
import type { GraphStore } from './ports/graph-store.js';
import type { RateLimiter } from './ports/rate-limiter.js';
import type { Reranker } from './ports/reranker.js';
import type { Tokenizer } from './ports/tokenizer.js';
import type { VectorStore } from './ports/vector-store.js';
import type { Tracer } from './ports/tracer.js';
import type { Logger } from './logger.js';
import type { Redactor } from './text/redact.js';
import type { Chunker } from './ingest/chunkers.js';
import {
  DEFAULT_CHAT_INSTRUCTIONS,
  DEFAULT_GUARD_ANSWER,
  DEFAULT_SYSTEM_PROMPT,
} from './pipeline/prompt.js';
import {
  DEFAULT_FUSION_WEIGHTS,
  DEFAULT_RRF_K,
  DEFAULT_WIDEN_SPREAD,
} from './pipeline/retrieve.js';
import * as z from 'zod/mini';
import { compactionConfigSchema } from './pipeline/compact.js';
import { DEFAULT_SUPPORT_THRESHOLD } from './pipeline/judge.js';
import { recallConfigSchema } from './pipeline/recall.js';
import { rewriteConfigSchema } from './pipeline/rewrite.js';
import { DEFAULT_FALLBACK_TEMPLATE } from './resilience/fallback.js';
import { lazyResilienceSettingsSchema, rateLimitSettingsSchema } from './resilience/settings.js';
import { TEXT_LANGUAGES } from './text/language-detection.js';
import { intRange, lazySchema, range, schemaOnFirstUse } from './util/schema.js';

/** An adapter object: checked to have the port's methods. */
const adapter = <T>(name: string, methods: readonly string[]) =>
  z.custom<T>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      methods.every((method) => typeof (value as Record<string, unknown>)[method] === 'function'),
    { message: `expected a ${name} (an object with ${methods.join(', ')})` },
  );

/** An optional port of the config. */
const port = <T>(name: string, methods: readonly string[]) => z.optional(adapter<T>(name, methods));

/**
 * Schema of `createChatEngine(config)`, built on the first call (the engine's own use).
 * Unknown keys are rejected.
 */
export const lazyEngineConfigSchema = lazySchema(() => {
  const unit = range(0, 1);
  const weight = z.number().check(z.gte(0));
  return z.strictObject({
    /** Vector store (default: in-memory, exact cosine). */
    vectorStore: port<VectorStore>('VectorStore', ['upsert', 'query', 'delete', 'count']),
    /** Keyword index (default: in-memory BM25). */
    keywordIndex: port<KeywordIndex>('KeywordIndex', ['add', 'search', 'delete', 'count']),
    /** Embedder (default: the hashing embedder, 384 dimensions). */
    embedder: port<EmbeddingProvider>('EmbeddingProvider', ['embed']),
    /**
     * Language model (default: the offline extractive provider; the engine never reads the
     * environment: build a hosted one with `createProvider` or `providerFromEnv` from
     * `cortexis/providers`).
     */
    llm: port<LLMProvider>('LLMProvider', ['generate', 'stream']),
    /**
     * More models by name, for sessions that choose one (`settings.model`, seed 000's
     * per-session model): e.g. `{ fast: createOpenAIChat(…), careful: createAnthropicChat(…) }`.
     * Each gets the same timeouts, retries and breaker as `llm`; sessions naming none use `llm`.
     */
    models: z.optional(
      z.record(
        z
          .string()
          .check(z.regex(/^[A-Za-z0-9._:-]{1,100}$/, 'must be 1-100 letters, digits, . _ : -')),
        adapter<LLMProvider>('LLMProvider', ['generate', 'stream']),
      ),
    ),
    /** Session store (default: in-memory). */
    sessionStore: port<SessionStore>('SessionStore', [
      'createSession',
      'getSession',
      'appendMessages',
      'listMessages',
    ]),
    /** Learning sink (default: in-memory). */
    learningSink: port<LearningSink>('LearningSink', [
      'beginTrajectory',
      'recordStep',
      'endTrajectory',
      'deleteSession',
    ]),
    /** Tokenizer for chunking and the context budget (default: the built-in BPE, cl100k_base). */
    tokenizer: port<Tokenizer>('Tokenizer', ['count', 'encode', 'decode']),
    /** Knowledge graph of the documents (default: in-memory). */
    graphStore: port<GraphStore>('GraphStore', [
      'upsertNodes',
      'upsertEdges',
      'neighbors',
      'deleteNodes',
    ]),
    /** Optional reranker (a cross-encoder or hosted reranker) for routes that ask for one. */
    reranker: port<Reranker>('Reranker', ['rerank']),
    /** Rate limiter used when `rateLimit.enabled` (default: in-memory sliding window). */
    rateLimiter: port<RateLimiter>('RateLimiter', ['hit']),
    /**
     * Receives a span per turn (with a child per stage), per `search` and per `ingest`
     * (default: none, and no tracing cost). `openTelemetryTracer()` from `cortexis/opentelemetry`.
     */
    tracer: port<Tracer>('Tracer', ['startSpan']),
    /** Structured logger (pino-compatible) for the engine's events (default: none). */
    logger: port<Logger>('Logger', ['debug', 'info', 'warn', 'error']),
    /** Timeouts, retries and circuit breaker around every model and embedder call. */
    resilience: z.prefault(lazyResilienceSettingsSchema(), {}),
    /** Per-key request limits (opt-in: library callers are trusted code). */
    rateLimit: z.prefault(rateLimitSettingsSchema(), {}),
    /** Tenant scope of every store call. */
    namespace: z._default(z.string().check(z.minLength(1), z.maxLength(200)), 'default'),
    /** How documents are cut into chunks. */
    chunking: z.prefault(
      z
        .strictObject({
          /** Most tokens per chunk. */
          chunkSize: z._default(intRange(16, 8192), 512),
          /** Tokens of the previous chunk repeated at the start of the next. */
          chunkOverlap: z._default(intRange(0), 64),
          /**
           * Cuts each document into chunks (default: `tokenChunker()`; built in also
           * `markdownSectionChunker()` and `fixedSizeChunker()`).
           */
          chunker: z.optional(
            z.custom<Chunker>((value) => typeof value === 'function', {
              message: 'expected a function (document, context) => chunks',
            }),
          ),
        })
        .check(
          z.refine((value) => value.chunkOverlap < value.chunkSize, {
            message: 'must be smaller than chunkSize',
            path: ['chunkOverlap'],
          }),
        ),
      {},
    ),
    /** How texts are analysed into index terms (`docs/retrieval.md`, "Languages"). */
    text: z.prefault(
      z.strictObject({
        /**
         * Language of documents and queries for the default keyword index: `'auto'` (default)
         * detects it per chunk and per query; a code (`'de'`, `'fr'`, `'ja'`, …) analyses every
         * text in that language (stemmer and stop words).
         */
        language: z._default(z.enum(['auto', ...TEXT_LANGUAGES]), 'auto'),
      }),
      {},
    ),
    /** How sources are found. */
    retrieval: z.prefault(
      z
        .strictObject({
          /** Sources per answer. */
          topK: z._default(intRange(1, 50), 3),
          /** Adaptive k: widen up to this many when the top scores are close together. */
          maxK: z._default(intRange(1, 50), 5),
          /** Candidates asked of each search before fusion. */
          candidates: z._default(intRange(1, 1000), 50),
          /**
           * Guard mode: below this best-source score the engine refuses to answer. Unset (the
           * default): the index-adaptive guard of `src/pipeline/guard.ts` decides.
           */
          minSimilarity: z.optional(unit),
          /** Sources scoring below this are dropped. */
          threshold: z._default(unit, 0),
          /** Weights of the vector and keyword lists in reciprocal-rank fusion. */
          weights: z._default(
            z
              .strictObject({ vector: weight, keyword: weight })
              .check(
                z.refine(
                  (value) => value.vector + value.keyword > 0,
                  'at least one weight must be > 0',
                ),
              ),
            DEFAULT_FUSION_WEIGHTS,
          ),
          /** Reciprocal-rank-fusion constant: each list adds weight / (rrfK + rank). */
          rrfK: z._default(z.number().check(z.gt(0)), DEFAULT_RRF_K),
          /** Adaptive k widens when the top scores lie within this spread. */
          widenSpread: z._default(unit, DEFAULT_WIDEN_SPREAD),
          /**
           * Search-results cache (seed 003): the candidate lists of recent queries, per engine.
           * `ingest`, `deleteDocuments` and `deleteSession` of this engine empty it; another
           * process writing to a shared store is seen after at most `ttlMs`. `maxEntries: 0`
           * turns it off.
           */
          cache: z.prefault(
            z.strictObject({
              /** Most queries kept (least recently used out first); 0: no cache. */
              maxEntries: z._default(intRange(0, 100_000), 100),
              /** How long an entry is served, ms. */
              ttlMs: z._default(intRange(0, 86_400_000), 60_000),
            }),
            {},
          ),
          /** Cosine range mapped to relevance [0, 1]; default: the embedder's `similarityRange`. */
          cosineRange: z.optional(
            z
              .tuple([range(-1, 1), range(-1, 1)])
              .check(
                z.refine(([floor, ceiling]) => floor < ceiling, 'floor must be below ceiling'),
              ),
          ),
        })
        .check(
          z.refine((value) => value.maxK >= value.topK, {
            message: 'must be at least topK',
            path: ['maxK'],
          }),
        ),
      {},
    ),
    /** Intent routing: each question gets the retrieval strategy of its intent. */
    routing: z.prefault(
      z.strictObject({
        /** Off: every question uses the `retrieval` strategy. */
        enabled: z._default(z.boolean(), true),
        /** Weight of the rules against the nearest labelled examples, in [0, 1]. */
        ruleWeight: z._default(range(0, 1), 0.6),
      }),
      {},
    ),
    /** The knowledge graph built at ingestion and used by relational and hybrid routes. */
    graph: z.prefault(
      z.strictObject({
        /** Off: no graph is built and no route expands through it. */
        enabled: z._default(z.boolean(), true),
        /** Salient terms linked per chunk (`RELATES_TO`); 0 links none. */
        maxTermsPerChunk: z._default(intRange(0, 50), 4),
        /** A term shared by more chunks than this relates none of them. */
        maxChunksPerTerm: z._default(intRange(1), 50),
        /** Characters of each chunk read for its terms. */
        termCharacters: z._default(intRange(1), 300),
        /** Weight of score propagation over graph neighbours in the ranking. */
        rerankWeight: z._default(range(0, 1), 0.25),
      }),
      {},
    ),
    /** History compaction by chat profile (`default`, `long_context`, `compact`, or your own). */
    compaction: compactionConfigSchema(),
    /** Semantic recall of the same user's earlier messages. */
    recall: recallConfigSchema(),
    /** Follow-up questions rewritten into standalone search queries. */
    rewrite: rewriteConfigSchema(),
    /** What of the conversation goes to the model. */
    history: z.prefault(
      z.strictObject({
        /** Most recent messages sent with each turn. */
        messages: z._default(intRange(0, 200), 10),
        /** Most tokens of history sent with each turn. */
        maxTokens: z._default(intRange(1), 2000),
      }),
      {},
    ),
    /** Generation settings. */
    generation: z.prefault(
      z.strictObject({
        /** Tokens reserved for (and most tokens of) the answer. */
        maxTokens: z._default(intRange(1), 512),
        /** Sampling temperature. */
        temperature: z._default(range(0, 2), 0.2),
        /** Nucleus sampling sent with every answer (seed 000 `topP`); unset: the model's default. */
        topP: z.optional(z.number().check(z.gt(0), z.lte(1))),
      }),
      {},
    ),
    /** Prompt templates. `{{sources}}` in the system template is replaced by the sources block. */
    prompt: z.prefault(
      z.strictObject({
        /** System prompt template. */
        system: z._default(z.string().check(z.minLength(1)), DEFAULT_SYSTEM_PROMPT),
        /** The fixed answer of guard mode. */
        guard: z._default(z.string().check(z.minLength(1)), DEFAULT_GUARD_ANSWER),
        /** Added to the system prompt when the conversation has earlier turns. */
        chat: z._default(z.string().check(z.minLength(1)), DEFAULT_CHAT_INSTRUCTIONS),
        /** Opening of the fallback answer while the circuit breaker is open. */
        fallback: z._default(z.string().check(z.minLength(1)), DEFAULT_FALLBACK_TEMPLATE),
      }),
      {},
    ),
    /** How `overall` is computed from the confidence factors. */
    confidence: z.prefault(
      z.strictObject({
        /**
         * `fitted` (default): the fitted model, or the weighted mean when `weights` are set.
         * `seed-000`: seed 000's formula as written (`seedConfidence`), with `weights` or the
         * seed's.
         */
        mode: z._default(z.enum(['fitted', 'seed-000']), 'fitted'),
        /**
         * Seed 000's weighted mean with these factor weights (e.g. `DEFAULT_CONFIDENCE_WEIGHTS`).
         * Unset (the default): the model fitted on the trust benchmark (`DEFAULT_CONFIDENCE_MODEL`).
         */
        weights: z.optional(
          z.strictObject({
            sourceQuality: weight,
            sourceDiversity: weight,
            semanticCohesion: weight,
            graphContext: weight,
            llmCertainty: weight,
          }),
        ),
      }),
      {},
    ),
    /** Limits on requests. */
    limits: z.prefault(
      z.strictObject({
        /** Most characters of a user message. */
        maxMessageLength: z._default(intRange(1), 16_000),
        /** Most characters of one document. */
        maxDocumentLength: z._default(intRange(1), 10_000_000),
      }),
      {},
    ),
    /** Notes about citations appended to answers. */
    citations: z.prefault(
      z.strictObject({
        /** Append "(Removed invalid citation)" when a tag naming no retrieved source was removed. */
        removalNote: z._default(z.boolean(), true),
        /** Append a standard "Sources: S1, S2" line (also per session). */
        includeCitations: z._default(z.boolean(), false),
      }),
      {},
    ),
    /** Learning from feedback. */
    learning: z.prefault(
      z.strictObject({
        /** A session's trajectory idle longer than this is ended as abandoned (ms). */
        idleTimeoutMs: z._default(intRange(1000), 30 * 60_000),
        /** Feedback adjusts a learned boost of the rated sources for similar questions. */
        learnedBoost: z._default(z.boolean(), true),
        /**
         * Rebuild the boost from the learning sink's stored feedback when the engine starts
         * (assumes the sink serves this namespace only).
         */
        replayFeedback: z._default(z.boolean(), true),
        /**
         * With `replayFeedback`, the first turn or search this long after the last pull reads
         * feedback recorded since (by other instances sharing the sink) in the background (ms;
         * 0: only at start).
         */
        syncIntervalMs: z._default(intRange(0), 30_000),
      }),
      {},
    ),
    /** Grounding: check each cited sentence against its sources. */
    judge: z.prefault(
      z.strictObject({
        /** `off`, `offline` (lexical and numeric evidence) or `llm` (the model judges each claim). */
        mode: z._default(z.enum(['off', 'offline', 'llm']), 'offline'),
        /** Unsupported claims: `annotate` (report), `remove` (drop them), `block` (guard answer). */
        policy: z._default(z.enum(['annotate', 'remove', 'block']), 'annotate'),
        /** Least support score of a supported claim. */
        threshold: z._default(range(0, 1), DEFAULT_SUPPORT_THRESHOLD),
        /** With `block`: least share of supported claims an answer needs. */
        minSupportedRatio: z._default(range(0, 1), 0.5),
      }),
      {},
    ),
    /**
     * Redacts each user message (and a stateless turn's `history`) before the engine stores,
     * searches, logs or sends it, e.g. `redactPII` (e-mails, phone numbers, cards, IBANs) or
     * your own `(text) => string`. Default: messages are kept as sent.
     */
    redact: z.optional(
      z.custom<Redactor>((value) => typeof value === 'function', {
        message: 'expected a function (text) => string',
      }),
    ),
    /** Answer greetings and thanks without retrieval (seed 004's shouldUseRAG). */
    smallTalk: z._default(z.boolean(), true),
    /** Messages that end a chat session (exact, case-insensitive, trimmed). */
    quitWords: z._default(z.array(z.string().check(z.minLength(1))), ['quit']),
  });
});

/**
 * Schema of `createChatEngine(config)`. Unknown keys are rejected. Built the first time it is
 * used, not when cortexis is imported.
 */
export const engineConfigSchema = schemaOnFirstUse(lazyEngineConfigSchema);

/** What `createChatEngine` accepts. */
export type EngineConfig = z.input<typeof engineConfigSchema>;

/** The configuration with every default applied. */
export type ResolvedConfig = z.output<typeof engineConfigSchema>;
