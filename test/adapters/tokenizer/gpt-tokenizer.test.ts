import { describe, expect, it } from 'vitest';
import {
  createGptTokenizer,
  truncateToTokens,
} from '../../../src/adapters/tokenizer/gpt-tokenizer.js';
import { ValidationError } from '../../../src/errors/index.js';

describe('createGptTokenizer', () => {
  it('loads cl100k_base by default and o200k_base on request', async () => {
    const cl100k = await createGptTokenizer();
    const o200k = await createGptTokenizer({ encoding: 'o200k_base' });
    expect(cl100k.name).toBe('cl100k_base');
    expect(o200k.name).toBe('o200k_base');
    const text = 'Refunds are issued within 14 days.';
    expect(cl100k.decode(cl100k.encode(text))).toBe(text);
    expect(o200k.decode(o200k.encode(text))).toBe(text);
  });

  it('counts what encode returns', async () => {
    const tokenizer = await createGptTokenizer();
    for (const text of ['', 'hello', 'Ünïcödé — 😀 text', 'a\n\nb  c\tdef '.repeat(20)]) {
      expect(tokenizer.count(text)).toBe(tokenizer.encode(text).length);
    }
  });

  it('treats special-token strings in user text as plain text', async () => {
    const tokenizer = await createGptTokenizer();
    const text = 'before <|endoftext|> after <|im_start|>';
    expect(() => tokenizer.count(text)).not.toThrow();
    expect(tokenizer.count(text)).toBeGreaterThan(4);
    expect(tokenizer.decode(tokenizer.encode(text))).toBe(text);
  });

  it('decodes statelessly: a cut inside a character does not leak into the next decode', async () => {
    const tokenizer = await createGptTokenizer();
    const tokens = tokenizer.encode('😀🎉');
    expect(tokens.length).toBeGreaterThan(2);
    // The emoji spans several tokens: the first alone is an incomplete character.
    expect(tokenizer.decode(tokens.slice(0, 1))).toBe('\uFFFD');
    expect(tokenizer.decode(tokenizer.encode('plain text'))).toBe('plain text');
    expect(tokenizer.decode(tokens)).toBe('😀🎉');
  });

  it('rejects an unknown encoding with a ValidationError naming the setting', async () => {
    const attempt = createGptTokenizer({ encoding: 'p50k_base' as 'cl100k_base' });
    await expect(attempt).rejects.toBeInstanceOf(ValidationError);
    await expect(attempt).rejects.toMatchObject({ issues: [{ path: 'encoding' }] });
  });
});

describe('truncateToTokens', () => {
  it('returns text that fits unchanged', async () => {
    const tokenizer = await createGptTokenizer();
    expect(truncateToTokens(tokenizer, 'Short text.', 100)).toBe('Short text.');
  });

  it('cuts to a prefix of at most maxTokens tokens', async () => {
    const tokenizer = await createGptTokenizer();
    const text = 'The refund policy allows returns within fourteen days. '.repeat(10);
    const cut = truncateToTokens(tokenizer, text, 17);
    expect(text.startsWith(cut)).toBe(true);
    expect(tokenizer.count(cut)).toBeLessThanOrEqual(17);
    expect(tokenizer.count(cut)).toBeGreaterThanOrEqual(15);
  });

  it('never cuts inside a character', async () => {
    const tokenizer = await createGptTokenizer();
    const text = '😀🎉🚀'.repeat(10);
    for (let maxTokens = 1; maxTokens < 12; maxTokens++) {
      const cut = truncateToTokens(tokenizer, text, maxTokens);
      expect(cut).not.toContain('\uFFFD');
      expect(text.startsWith(cut)).toBe(true);
      expect(tokenizer.count(cut)).toBeLessThanOrEqual(maxTokens);
    }
  });

  it('gives an empty string for a budget of zero', async () => {
    const tokenizer = await createGptTokenizer();
    expect(truncateToTokens(tokenizer, 'anything', 0)).toBe('');
  });
});
