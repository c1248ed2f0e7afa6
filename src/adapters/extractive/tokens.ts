/**
 * Tokens and deltas of the output: approximate token counts (or a tokenizer's), the input text
 * counted for usage, the stream's word-sized deltas, and cutting an answer to `maxTokens`.
 */
import type { LLMRequest } from '../../ports/llm-provider.js';
import type { Tokenizer } from '../../ports/tokenizer.js';

/**
 * Whether a UTF-16 code unit is white space as the regular expression `\s` sees it (the
 * ECMAScript WhiteSpace and LineTerminator characters).
 */
export function isSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * Approximate tokens of a text: each word (a run of non-space characters) counts one token per
 * four characters, at least one. A scan of char codes: the whole prompt is counted every turn.
 */
export function approximateTokens(text: string): number {
  let tokens = 0;
  let length = 0;
  for (let index = 0; index < text.length; index++) {
    if (isSpace(text.charCodeAt(index))) {
      if (length > 0) tokens += Math.ceil(length / 4);
      length = 0;
    } else length++;
  }
  if (length > 0) tokens += Math.ceil(length / 4);
  return tokens;
}

/** Tokens of a text: the tokenizer's count, else the approximation. */
export function countTokens(text: string, tokenizer: Tokenizer | undefined): number {
  return tokenizer ? tokenizer.count(text) : approximateTokens(text);
}

/**
 * Approximate tokens of the text a request sends the model: its system prompt, its messages and
 * its sources (each once: not when the system prompt holds it). The parts are counted one by one,
 * which is the count of their text joined by line breaks (a word never spans a line break),
 * without building that text every turn.
 */
export function approximateInputTokens(request: LLMRequest): number {
  const { system } = request;
  let tokens = approximateTokens(system ?? '');
  for (const message of request.messages) tokens += approximateTokens(message.content);
  for (const source of request.sources ?? []) {
    if (!system?.includes(source.text)) tokens += approximateTokens(source.text);
  }
  return tokens;
}

/** One delta of {@link splitDeltas}. */
const DELTA = /(?:^\s*)?(?:\[\s*source\s*:[^\][]*\]|\S)+\s*|\s+/gi;

/**
 * The stream's deltas: each a word (a citation tag with its trailing punctuation counts as one)
 * plus the white space after it. They concatenate exactly to `text`.
 */
export function splitDeltas(text: string): string[] {
  return text.match(DELTA) ?? [];
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
  let keptTokens = 0;
  // The last character of `kept`, read from its delta (reading `kept` would flatten it).
  let lastCode = -1;
  // The deltas one by one (`matchAll` yields what `splitDeltas` lists): the cut stops early.
  for (const [delta] of text.matchAll(DELTA)) {
    // Approximate counts add up across white space: only the new delta is scanned (a summary
    // cut to `maxTokens` rescanned its whole prefix per word).
    const additive =
      tokenizer === undefined &&
      (lastCode < 0 || isSpace(lastCode) || isSpace(delta.charCodeAt(0)));
    const tokens = additive
      ? keptTokens + approximateTokens(delta)
      : countTokens(kept + delta, tokenizer);
    if (tokens > maxTokens) break;
    kept += delta;
    keptTokens = tokens;
    if (delta.length > 0) lastCode = delta.charCodeAt(delta.length - 1);
  }
  return { text: kept.trimEnd(), truncated: true };
}
