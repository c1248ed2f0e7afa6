import { rememberedPieceCounter } from '../../ingest/token-count.js';
import type { Tokenizer } from '../../ports/tokenizer.js';

/** Settings of {@link withCountCache}. */
export interface CountCacheSettings {
  /** Most texts remembered (least recently used dropped first; default 4096). */
  readonly maxEntries?: number | undefined;
  /** Shorter texts are counted every time; they are cheap (default 64 characters). */
  readonly minLength?: number | undefined;
}

/** A tokenizer whose counts are cached; `clear` forgets every remembered text. */
export interface CountCachedTokenizer extends Tokenizer {
  /** Forgets the remembered texts (their counts and the texts themselves). */
  clear(): void;
}

/**
 * Wraps a tokenizer so that `count` remembers recent texts. Each turn counts the same system
 * prompt and, often, the same popular chunks again: byte-pair encoding them once is enough.
 * A text not remembered is counted by a `piecewise` tokenizer (the built-in encodings) as the
 * sum of its words' counts, each word read from the table ingestion filled when it chunked the
 * same tokenizer's documents (`rememberedPieceCounter`): a retrieved chunk's words are known, so
 * it is counted without byte-pair encoding, and the count is the tokenizer's own. The turns'
 * texts are not added to that table, so `clear` still forgets every text a turn counted.
 */
export function withCountCache(
  tokenizer: Tokenizer,
  settings: CountCacheSettings = {},
): CountCachedTokenizer {
  const maxEntries = settings.maxEntries ?? 4096;
  const minLength = settings.minLength ?? 64;
  const counts = new Map<string, number>();
  const countText = rememberedPieceCounter(tokenizer);
  return {
    name: tokenizer.name,
    piecewise: tokenizer.piecewise,
    encode: (text) => tokenizer.encode(text),
    decode: (tokens) => tokenizer.decode(tokens),
    count(text) {
      if (text.length < minLength) return tokenizer.count(text);
      const known = counts.get(text);
      if (known !== undefined) {
        counts.delete(text);
        counts.set(text, known);
        return known;
      }
      const count = countText(text);
      counts.set(text, count);
      if (counts.size > maxEntries) counts.delete(counts.keys().next().value!);
      return count;
    },
    clear() {
      counts.clear();
    },
  };
}
