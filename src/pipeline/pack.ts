import type { LLMMessage } from '../ports/llm-provider.js';
import type { Tokenizer } from '../ports/tokenizer.js';

// Tokens a chat format spends per message on role and separators (OpenAI counts ≈ 4).
const MESSAGE_OVERHEAD = 4;
// Tokens the sources block spends per source on its fence and label.
const SOURCE_OVERHEAD = 12;

/** What a turn's context is packed from, each part ranked by priority. */
export interface PackInput<C extends { readonly text: string }> {
  /** The model's context window, tokens. */
  readonly contextWindow: number;
  /** Tokens reserved for the answer. */
  readonly answerTokens: number;
  /** The system template without sources. */
  readonly system: string;
  /** The current user message. */
  readonly message: string;
  /** Recent history, oldest first (without the current message). */
  readonly history: readonly LLMMessage[];
  /** Most tokens history may take. */
  readonly historyTokens: number;
  /** Retrieved chunks, best first. */
  readonly chunks: readonly C[];
}

/** What fitted. */
export interface PackResult<C> {
  /** History kept (the most recent messages that fit), oldest first. */
  readonly history: LLMMessage[];
  /** Chunks kept, best first. */
  readonly chunks: C[];
  /** Chunks left out because they did not fit. */
  readonly droppedChunks: number;
  /** History messages left out. */
  readonly droppedHistory: number;
  /** Tokens of the prompt as packed. */
  readonly promptTokens: number;
}

/**
 * Packs a turn's context under the budget `contextWindow − answerTokens`. Priorities: the
 * system prompt and the current message always; then history, newest first, up to
 * `historyTokens`; then whole chunks, best first, skipping any that does not fit.
 */
export function packContext<C extends { readonly text: string }>(
  input: PackInput<C>,
  tokenizer: Tokenizer,
): PackResult<C> {
  let used = tokenizer.count(input.system) + tokenizer.count(input.message) + 2 * MESSAGE_OVERHEAD;
  const budget = input.contextWindow - input.answerTokens;

  const history: LLMMessage[] = [];
  let historyUsed = 0;
  for (let index = input.history.length - 1; index >= 0; index--) {
    const message = input.history[index]!;
    const cost = tokenizer.count(message.content) + MESSAGE_OVERHEAD;
    if (historyUsed + cost > input.historyTokens || used + historyUsed + cost > budget) break;
    history.unshift(message);
    historyUsed += cost;
  }
  used += historyUsed;

  const chunks: C[] = [];
  for (const chunk of input.chunks) {
    const cost = tokenizer.count(chunk.text) + SOURCE_OVERHEAD;
    if (used + cost > budget) continue;
    chunks.push(chunk);
    used += cost;
  }
  return {
    history,
    chunks,
    droppedChunks: input.chunks.length - chunks.length,
    droppedHistory: input.history.length - history.length,
    promptTokens: used,
  };
}
