import { afterEach, beforeEach, describe, expect, it } from './runner.js';
import type { Tokenizer } from '../ports/tokenizer.js';
import { titled, type SkipReasons, type SuiteOptions } from './shared.js';

/** Parts of the `Tokenizer` contract an adapter may lack (see {@link SkipReasons}). */
export type TokenizerCapability = 'roundTrip';

/** Options of {@link testTokenizer}. */
export interface TokenizerSuiteOptions extends SuiteOptions<Tokenizer> {
  /** Capabilities the adapter lacks, with the reason printed in the skipped tests' titles. */
  readonly skip?: SkipReasons<TokenizerCapability> | undefined;
}

const SAMPLES = [
  'Hello, world!',
  'Refunds are issued within 14 days [source: S1].',
  '  leading and trailing spaces\n\nand a blank line  ',
  'Ünïcödé — naïve café, 日本語のテキスト, emoji 🎉👍.',
  'function add(a, b) {\n  return a + b;\n}',
];

/**
 * Registers a `describe` block checking a `Tokenizer` against the port contract: `count`
 * equals the length of `encode`, token ids are non-negative integers, empty text has no
 * tokens, longer text has more, and `decode(encode(text))` gives the text back.
 */
export function testTokenizer(options: TokenizerSuiteOptions): void {
  const skip = options.skip ?? {};

  describe(options.title ?? 'Tokenizer conformance', () => {
    let tokenizer: Tokenizer;

    beforeEach(async () => {
      tokenizer = await options.create();
    });

    afterEach(async () => {
      await options.destroy?.(tokenizer);
    });

    it('declares its name', () => {
      expect(typeof tokenizer.name).toBe('string');
      expect(tokenizer.name.length).toBeGreaterThan(0);
    });

    it('gives no tokens for empty text', () => {
      expect(tokenizer.count('')).toBe(0);
      expect(tokenizer.encode('')).toEqual([]);
      expect(tokenizer.decode([])).toBe('');
    });

    it('counts exactly the tokens encode returns, as non-negative integers', () => {
      for (const text of SAMPLES) {
        const tokens = tokenizer.encode(text);
        expect(tokens.length).toBeGreaterThan(0);
        expect(tokenizer.count(text)).toBe(tokens.length);
        expect(tokens.every((token) => Number.isInteger(token) && token >= 0)).toBe(true);
      }
    });

    it('gives longer text more tokens', () => {
      const sentence = 'The refund policy allows returns within fourteen days. ';
      expect(tokenizer.count(sentence.repeat(10))).toBeGreaterThan(tokenizer.count(sentence) * 5);
    });

    it.skipIf(skip.roundTrip)(
      titled('decodes its own tokens back to the text', skip.roundTrip),
      () => {
        for (const text of SAMPLES) expect(tokenizer.decode(tokenizer.encode(text))).toBe(text);
      },
    );
  });
}
