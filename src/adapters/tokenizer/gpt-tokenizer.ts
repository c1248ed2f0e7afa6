/**
 * `Tokenizer` for OpenAI's BPE encodings. Each encoding's table ships with cortexis as its own
 * module, loaded with a dynamic import on first use: importing cortexis does not load it, and
 * bundlers split it into a chunk of its own. Browser hosts that would rather fetch the table
 * pass it to `createBpeTokenizer` instead.
 * @module
 */
import { ValidationError } from '../../errors/index.js';
import type { Tokenizer } from '../../ports/tokenizer.js';
import { createBpeTokenizer, type BpeEncodingData } from './bpe.js';

/** BPE encodings this adapter can load. */
export type GptEncodingName = 'cl100k_base' | 'o200k_base';

/** Settings of `createGptTokenizer`. */
export interface GptTokenizerSettings {
  /**
   * The encoding: `cl100k_base` (GPT-4, GPT-3.5, default; loads about twice as fast) or
   * `o200k_base` (GPT-4o and later).
   */
  readonly encoding?: GptEncodingName | undefined;
}

// Literal specifiers, one per encoding, so bundlers can split each table into its own chunk.
const loaders: Record<GptEncodingName, () => Promise<{ default: BpeEncodingData }>> = {
  cl100k_base: () => import('./encodings/cl100k_base.js'),
  o200k_base: () => import('./encodings/o200k_base.js'),
};

const loaded = new Map<GptEncodingName, Promise<Tokenizer>>();

/**
 * Loads an OpenAI BPE encoding (parsed once per process) and returns it as a `Tokenizer`. Text
 * that spells a special token such as `<|endoftext|>` is encoded as plain text.
 */
export async function createGptTokenizer(settings: GptTokenizerSettings = {}): Promise<Tokenizer> {
  const encoding = settings.encoding ?? 'cl100k_base';
  if (!Object.hasOwn(loaders, encoding)) {
    const message = `encoding must be one of ${Object.keys(loaders).join(', ')}`;
    throw new ValidationError(`Invalid tokenizer settings: ${message}`, [
      { path: 'encoding', message },
    ]);
  }
  let tokenizer = loaded.get(encoding);
  if (!tokenizer) {
    tokenizer = loaders[encoding]().then((module) => createBpeTokenizer({ data: module.default }));
    // A failed load is not cached, so a later call can try again.
    tokenizer.catch(() => loaded.delete(encoding));
    loaded.set(encoding, tokenizer);
  }
  return tokenizer;
}

/**
 * The longest prefix of `text` that is at most `maxTokens` tokens, cut on a token boundary
 * (never inside a character); `text` itself when it fits.
 */
export function truncateToTokens(tokenizer: Tokenizer, text: string, maxTokens: number): string {
  if (maxTokens <= 0) return '';
  if (tokenizer.count(text) <= maxTokens) return text;
  const tokens = tokenizer.encode(text);
  // A cut inside a multi-byte character decodes to U+FFFD; step back until it does not.
  for (let length = Math.min(maxTokens, tokens.length); length > 0; length--) {
    const prefix = tokenizer.decode(tokens.slice(0, length));
    if (text.startsWith(prefix)) return prefix;
  }
  return '';
}
