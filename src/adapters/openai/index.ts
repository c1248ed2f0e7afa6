/**
 * `cortexis/openai`: the Chat Completions and Embeddings APIs over `fetch`, for OpenAI and
 * any OpenAI-compatible server (vLLM, LM Studio, llama.cpp server, Ollama's `/v1`). No SDK,
 * no `node:` imports. Adapters never retry or time out: they honour `signal` and throw
 * `ProviderError` (`status`, `retryable`, `retryAfterMs`) or `AbortError`, and the engine's
 * resilience layer decides.
 *
 * @example
 * ```ts
 * import { createChatEngine } from 'cortexis';
 * import { createOpenAIChat, createOpenAIEmbeddings } from 'cortexis/openai';
 *
 * const engine = createChatEngine({
 *   llm: createOpenAIChat({ apiKey: process.env.OPENAI_API_KEY, model: 'gpt-4.1-mini' }),
 * });
 *
 * // A local OpenAI-compatible server needs no key:
 * const local = createOpenAIChat({ baseURL: 'http://127.0.0.1:8000/v1', model: 'qwen2.5-7b' });
 * ```
 *
 * The parts: `connection.ts` (shared settings and headers), `chat.ts` and `chat-stream.ts`
 * (the chat adapter and its stream parsing), `embeddings.ts` (the embeddings adapter) and
 * `wire-schemas.ts` (response schemas and their mapping to the port).
 * @module
 */
export type { FetchFunction, HeaderValues } from '../http/post-json.js';
export { OPENAI_BASE_URL, type OpenAIConnectionSettings } from './connection.js';
export { createOpenAIChat, DEFAULT_OPENAI_CHAT_MODEL, type OpenAIChatSettings } from './chat.js';
export {
  createOpenAIEmbeddings,
  DEFAULT_OPENAI_EMBEDDING_MODEL,
  type OpenAIEmbeddingsSettings,
} from './embeddings.js';
export { certaintyFromLogprobs, openAIFinishReason } from './wire-schemas.js';
