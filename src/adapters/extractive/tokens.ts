/**
 * Tokens and deltas of the output: approximate token counts (or a tokenizer's), the input text
 * counted for usage, the stream's word-sized deltas, and cutting an answer to `maxTokens`.
 */
import type { LLMRequest } from '../../ports/llm-provider.js';
import type { Tokenizer } from '../../ports/tokenizer.js';

/** Approximate tokens of a text: each word counts one token per four characters, at least one. */
export function approximateTokens(text: string): number {
  let tokens = 0;
  for (const match of text.matchAll(/\S+/g)) tokens += Math.max(1, Math.ceil(match[0].length / 4));
  return tokens;
}

/** Tokens of a text: the tokenizer's count, else the approximation. */
export function countTokens(text: string, tokenizer: Tokenizer | undefined): number {
  return tokenizer ? tokenizer.count(text) : approximateTokens(text);
}

/** The text a request sends the model (its sources once, when the system prompt lacks them). */
export function inputText(request: LLMRequest): string {
  const parts = [request.system ?? '', ...request.messages.map((message) => message.content)];
  for (const source of request.sources ?? []) {
    if (!request.system?.includes(source.text)) parts.push(source.text);
  }
  return parts.join('\n');
}

/**
 * The stream's deltas: each a word (a citation tag with its trailing punctuation counts as one)
 * plus the white space after it. They concatenate exactly to `text`.
 */
export function splitDeltas(text: string): string[] {
  return text.match(/\s*(?:\[\s*source\s*:[^\]]*\]|\S)+\s*|\s+/gi) ?? [];
}

/** The longest prefix of whole deltas within `maxTokens`, and whether it was cut. */
export function limitTokens(
  text: string,
  maxTokens: number | undefined,
  tokenizer: Tokenizer | undefined,
): { text: string; truncated: boolean } {
  if (maxTokens === undefined || countTokens(text, tokenizer) <= maxTokens) {
    return { text, truncated: false };
  }
  let kept = '';
  for (const delta of splitDeltas(text)) {
    if (countTokens(kept + delta, tokenizer) > maxTokens) break;
    kept += delta;
  }
  return { text: kept.trimEnd(), truncated: true };
}
