/**
 * The tokenizer the engine falls back to when its default table cannot be loaded (a bundle
 * without cortexis's `encodings/` folder and no injected table): every 4 bytes of UTF-8 are one
 * token, about what BPE gives English text. Counts are estimates; `decode(encode(text))` is
 * `text`.
 * @module
 */
import type { Tokenizer } from '../../ports/tokenizer.js';

/** Bytes per token. */
const WIDTH = 4;
/** A token id is `length × 2^32 + the bytes, big-endian`: `length` keeps a short last token. */
const LENGTH_UNIT = 2 ** 32;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** An estimating `Tokenizer`: one token per 4 bytes of UTF-8 (name `utf8-estimate`). */
export function createEstimateTokenizer(): Tokenizer {
  return {
    name: 'utf8-estimate',
    count: (text) => Math.ceil(encoder.encode(text).length / WIDTH),
    encode(text) {
      const bytes = encoder.encode(text);
      const tokens: number[] = [];
      for (let start = 0; start < bytes.length; start += WIDTH) {
        const end = Math.min(bytes.length, start + WIDTH);
        let value = 0;
        for (let index = start; index < end; index++) value = value * 256 + bytes[index]!;
        tokens.push((end - start) * LENGTH_UNIT + value);
      }
      return tokens;
    },
    decode(tokens) {
      const bytes: number[] = [];
      for (const token of tokens) {
        const length = Math.floor(token / LENGTH_UNIT);
        if (!Number.isInteger(token) || length < 1 || length > WIDTH) continue;
        let value = token - length * LENGTH_UNIT;
        const piece: number[] = [];
        for (let index = 0; index < length; index++) {
          piece.unshift(value % 256);
          value = Math.floor(value / 256);
        }
        bytes.push(...piece);
      }
      return decoder.decode(new Uint8Array(bytes));
    },
  };
}
