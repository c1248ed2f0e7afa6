import { describe, expect, it } from 'vitest';
import { createEstimateTokenizer } from '../../../src/adapters/tokenizer/estimate.js';
import { truncateToTokens } from '../../../src/adapters/tokenizer/gpt-tokenizer.js';
import { testTokenizer } from '../../../src/testing/index.js';

testTokenizer({
  title: 'estimating tokenizer (fallback)',
  create: () => createEstimateTokenizer(),
});

describe('createEstimateTokenizer', () => {
  const tokenizer = createEstimateTokenizer();

  it('counts one token per 4 bytes of UTF-8 and round-trips any text', () => {
    expect(tokenizer.name).toBe('utf8-estimate');
    expect(tokenizer.count('')).toBe(0);
    expect(tokenizer.count('abcd')).toBe(1);
    expect(tokenizer.count('abcde')).toBe(2);
    expect(tokenizer.count('€')).toBe(1);
    for (const text of [
      'Refunds take 14 days.',
      'Ünïcödé ✓ 日本語 🎉',
      'a\u0000b',
      'x'.repeat(10_001),
    ]) {
      expect(tokenizer.decode(tokenizer.encode(text))).toBe(text);
      expect(tokenizer.encode(text)).toHaveLength(tokenizer.count(text));
    }
  });

  it('cuts on a character boundary with truncateToTokens', () => {
    const text = '🎉🎉🎉 done';
    const cut = truncateToTokens(tokenizer, text, 2);
    expect(text.startsWith(cut)).toBe(true);
    expect(cut).toBe('🎉🎉');
  });

  it('decodes hostile ids without throwing: foreign, negative, fractional, huge', () => {
    expect(tokenizer.decode([-1, 0.5, Number.MAX_SAFE_INTEGER, Number.NaN, 2 ** 40])).toBe('');
    expect(tokenizer.decode([...tokenizer.encode('ok'), -5])).toBe('ok');
  });

  it('encodes a lone surrogate as U+FFFD, as TextEncoder does', () => {
    expect(tokenizer.decode(tokenizer.encode('a\ud800b'))).toBe('a\ufffdb');
  });
});
