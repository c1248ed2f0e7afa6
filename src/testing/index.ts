/**
 * `cortexis/testing`: conformance suites for adapter authors, a scripted mock LLM and a faulty
 * LLM for abort and fault tests. Each suite registers a `describe` block with the test runner
 * it finds (vitest, jest, `node:test`; or the one given to `useTestRunner`) and asserts with
 * its own `expect`: no test framework is needed to import this entry.
 *
 * @example
 * ```ts
 * import { testVectorStore } from 'cortexis/testing';
 * import { createMyVectorStore } from '../src/my-vector-store.js';
 *
 * testVectorStore({
 *   create: () => createMyVectorStore({ url: process.env.DB_URL }),
 *   skip: { rangeFilters: 'the backing database has no range queries on strings' },
 * });
 * ```
 * @module
 */
export { createMockLLM } from './mock-llm.js';
export type {
  MockLLM,
  MockLLMBrokenStream,
  MockLLMCall,
  MockLLMResponder,
  MockLLMResponse,
  MockLLMSettings,
  MockLLMText,
} from './mock-llm.js';
export { createFaultyLLM } from './faulty-llm.js';
export type {
  FaultyLLM,
  FaultyLLMCall,
  FaultyLLMOutcome,
  FaultyLLMSettings,
  LLMFault,
  LLMFaultScript,
  LLMFaultStatus,
} from './faulty-llm.js';
export { useTestRunner } from './runner.js';
export type { TestBody, TestRunner } from './runner.js';
export { ConformanceAssertionError } from './expect.js';
export type { SkipReasons, SuiteOptions } from './shared.js';
export { testVectorStore } from './test-vector-store.js';
export type { VectorStoreCapability, VectorStoreSuiteOptions } from './test-vector-store.js';
export { testKeywordIndex } from './test-keyword-index.js';
export type { KeywordIndexCapability, KeywordIndexSuiteOptions } from './test-keyword-index.js';
export { testGraphStore } from './test-graph-store.js';
export type { GraphStoreCapability, GraphStoreSuiteOptions } from './test-graph-store.js';
export { testSessionStore } from './test-session-store.js';
export type { SessionStoreCapability, SessionStoreSuiteOptions } from './test-session-store.js';
export { testLearningSink } from './test-learning-sink.js';
export type { LearningSinkCapability, LearningSinkSuiteOptions } from './test-learning-sink.js';
export { testEmbeddingProvider } from './test-embedding-provider.js';
export type {
  EmbeddingProviderCapability,
  EmbeddingProviderSuiteOptions,
} from './test-embedding-provider.js';
export { testLLMProvider } from './test-llm-provider.js';
export type { LLMProviderCapability, LLMProviderSuiteOptions } from './test-llm-provider.js';
export { testTokenizer } from './test-tokenizer.js';
export type { TokenizerCapability, TokenizerSuiteOptions } from './test-tokenizer.js';
export { testRateLimiter } from './test-rate-limiter.js';
export type {
  RateLimiterCapability,
  RateLimiterLimits,
  RateLimiterSuiteOptions,
} from './test-rate-limiter.js';
