import type { Tokenizer } from '../../ports/tokenizer.js';

/** Settings of {@link withCountCache}. */
export interface CountCacheSettings {
  /** Most texts remembered (least recently used dropped first; default 4096). */
  readonly maxEntries?: number | undefined;
  /** Shorter texts are counted every time; they are cheap (default 64 characters). */
  readonly minLength?: number | undefined;
}

/**
 * Wraps a tokenizer so that `count` remembers recent texts. Each turn counts the same system
 * prompt and, often, the same popular chunks again: byte-pair encoding them once is enough.
 */
/** A tokenizer whose counts are cached; `clear` forgets every remembered text. */
export interface CountCachedTokenizer extends Tokenizer {
  /** Forgets the remembered texts (their counts and the texts themselves). */
  clear(): void;
}

export function withCountCache(
  tokenizer: Tokenizer,
  settings: CountCacheSettings = {},
): CountCachedTokenizer {
  const maxEntries = settings.maxEntries ?? 4096;
  const minLength = settings.minLength ?? 64;
  const counts = new Map<string, number>();
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
      const count = tokenizer.count(text);
      counts.set(text, count);
      if (counts.size > maxEntries) counts.delete(counts.keys().next().value!);
      return count;
    },
    clear() {
      counts.clear();
    },
  };
}
