/**
 * The ports: every interface the engine talks to. Types only — adapters implement them.
 * @module
 */
export type * from './common.js';
export type * from './chat-records.js';
export type * from './vector-store.js';
export type * from './keyword-index.js';
export type * from './graph-store.js';
export type * from './embedding-provider.js';
export type * from './llm-provider.js';
export type * from './session-store.js';
export type * from './learning-sink.js';
export type * from './tokenizer.js';
export type * from './rate-limiter.js';
export type * from './reranker.js';
export type * from './tracer.js';
