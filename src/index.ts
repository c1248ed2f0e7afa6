/**
 * cortexis — embeddable retrieval-augmented chat: hybrid retrieval, validated citations,
 * confidence scores and persistent sessions, offline by default.
 *
 * @example
 * ```ts
 * import { createChatEngine } from 'cortexis';
 *
 * const engine = createChatEngine();
 * await engine.ingest([{ id: 'handbook', title: 'Handbook', text: markdown }]);
 * const session = await engine.createSession({ userId: 'u1' });
 * const reply = await engine.chat({ sessionId: session.id, message: 'What is the refund policy?' });
 * console.log(reply.text, reply.sources, reply.confidence.level);
 * ```
 * @module
 */
export {
  createChatEngine,
  type ChatEngine,
  type IngestOptions,
  type UserErasureReport,
} from './engine.js';
export { ChatStream } from './stream.js';
export type {
  CortexisSourceMetadata,
  CortexisUIDataTypes,
  CortexisUIMessageMetadata,
  UIMessageStreamOptions,
  UIMessageStreamResponseInit,
} from './ui-message-stream.js';
export {
  cortexisSources,
  readSourceMetadata,
  type CortexisUISource,
  type UIPartLike,
} from './ui-message-stream.js';
export { engineConfigSchema, type EngineConfig, type ResolvedConfig } from './config.js';
export * from './errors/index.js';
export { EngineEmitter } from './events.js';
export type { Logger, LogMethod } from './logger.js';
export type * from './events.js';
export type * from './types.js';
export type * from './ports/index.js';

// Reference adapters of the core entry.
export {
  createMemoryVectorStore,
  DEFAULT_HNSW_THRESHOLD,
  hnswlibAnn,
  type AnnHit,
  type AnnIndex,
  type AnnIndexFactory,
  type MemoryVectorStore,
  type MemoryVectorStoreSettings,
  type VectorIndexMode,
  type VectorIndexStats,
} from './adapters/memory/vector-store.js';
export {
  createMemoryKeywordIndex,
  type MemoryKeywordIndex,
} from './adapters/memory/keyword-index.js';
export { createMemoryGraphStore, type MemoryGraphStore } from './adapters/memory/graph-store.js';
export { createMemorySessionStore } from './adapters/memory/session-store.js';
export { createMemoryLearningSink } from './adapters/memory/learning-sink.js';
export {
  createMemoryRateLimiter,
  type MemoryRateLimiter,
  type MemoryRateLimiterSettings,
} from './adapters/memory/rate-limiter.js';
export { rateLimitKey } from './util/rate-limit-key.js';
export { createHashingEmbedder } from './adapters/hashing/embedder.js';
export {
  createTextAnalyzer,
  type TextAnalyzer,
  type TextAnalyzerSettings,
} from './text/analyzer.js';
export {
  detectLanguage,
  TEXT_LANGUAGES,
  type LanguageSetting,
  type TextLanguage,
} from './text/language-detection.js';
export { redactPII } from './text/redact.js';
export { isRefusalText } from './text/refusal.js';
export { createExtractiveProvider } from './adapters/extractive/provider.js';
export { createGptTokenizer } from './adapters/tokenizer/gpt-tokenizer.js';
export { createBpeTokenizer } from './adapters/tokenizer/bpe.js';

// Pure building blocks of the pipeline, for custom flows and tests.
export { chunkText } from './ingest/chunk.js';
export {
  fixedSizeChunker,
  markdownSectionChunker,
  tokenChunker,
  type Chunker,
  type ChunkerContext,
  type DocumentChunk,
  type FixedSizeChunkerOptions,
  type MarkdownSectionChunkerOptions,
} from './ingest/chunkers.js';
export { htmlToText } from './ingest/html.js';
export { createCitationFilter, validateCitations, type CitationFilter } from './pipeline/cite.js';
export {
  scoreConfidence,
  confidenceLevel,
  DEFAULT_CONFIDENCE_WEIGHTS,
  type ConfidenceInput,
  type ConfidenceWeights,
} from './pipeline/score.js';
export { seedConfidence, type ConfidenceMode } from './pipeline/score/seed-000.js';
export {
  CHAT_PROFILES,
  DEFAULT_CHAT_PROFILE,
  listChatProfiles,
  resolveChatProfile,
  type ChatProfile,
  type ChatProfileEntry,
} from './pipeline/compact/profiles.js';
export { assessSessionQuality, turnReward, type QualityMessage } from './pipeline/learn.js';
export { calculateFeedbackReward, type FeedbackInput } from './learning/feedback.js';
export {
  DEFAULT_GUARD_ANSWER,
  DEFAULT_SYSTEM_PROMPT,
  buildSystemPrompt,
  type PromptMemory,
  type SummaryPosition,
} from './pipeline/prompt.js';
export type { IngestProgress } from './validate.js';
export { matchesFilter, validateFilter } from './query/filter.js';

// Resilience around provider calls.
export {
  CircuitOpenError,
  RetryError,
  createResilientEmbedder,
  createResilientLLM,
  fallbackAnswer,
  resilienceSettingsSchema,
  type ResilienceHooks,
  type ResilientEmbedder,
  type ResilientLLM,
} from './resilience/index.js';

// Types named by the exports above (settings, results, events), so users can name them too.
export type { ExtractiveProviderSettings } from './adapters/extractive/provider.js';
export type { HashingEmbedderSettings } from './adapters/hashing/embedder.js';
export type { MemoryGraphStoreSettings } from './adapters/memory/graph-store.js';
export type { HnswGraph, HnswLibrary, HnswParameters } from './adapters/memory/hnsw-index.js';
export type { MemoryKeywordIndexSettings } from './adapters/memory/keyword-index.js';
export type { MemoryLearningSinkSettings } from './adapters/memory/learning-sink.js';
export type { MemorySessionStoreSettings } from './adapters/memory/session-store.js';
export type { GptEncodingName, GptTokenizerSettings } from './adapters/tokenizer/gpt-tokenizer.js';
export type { BpeEncodingData, BpeTokenizerSettings } from './adapters/tokenizer/bpe.js';
export type { ChunkOptions, TextChunk } from './ingest/chunk.js';
export type { CitationFilterOptions } from './pipeline/cite.js';
export type { ClaimEvidence, ClaimVerdict, ContradictionKind } from './pipeline/judge.js';
export type { RetrievalStrategy } from './pipeline/route.js';
export type { ConfidenceLevels, ConfidenceModel } from './pipeline/score.js';
export type {
  BreakerPermit,
  BreakerSnapshot,
  BreakerState,
  CircuitBreaker,
} from './resilience/breaker.js';
export type { RetryStopReason } from './resilience/errors.js';
export type { FallbackOptions, FallbackSource } from './resilience/fallback.js';
export type {
  ProviderRateLimitEvent,
  ResilienceBreakerEvent,
  ResilienceCallContext,
  ResilienceRetryEvent,
  ResilienceRuntime,
  ResilientOperation,
} from './resilience/resilient-llm.js';
export type { SplitText } from './text/analyzer.js';
export type { Redactor } from './text/redact.js';
