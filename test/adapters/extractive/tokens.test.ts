import { describe, expect, it } from 'vitest';
import { approximateTokens } from '../../../src/adapters/extractive/tokens.js';

/** The approximation as defined: one token per four characters of each `\S+` run, at least one. */
function reference(text: string): number {
  let tokens = 0;
  for (const match of text.matchAll(/\S+/g)) tokens += Math.max(1, Math.ceil(match[0].length / 4));
  return tokens;
}

describe('approximate token counts', () => {
  it('counts one token per four characters of each word, at least one', () => {
    expect(approximateTokens('')).toBe(0);
    expect(approximateTokens('a bb ccccc')).toBe(1 + 1 + 2);
    expect(approximateTokens('  lead\tand\ntrail  ')).toBe(1 + 1 + 2);
  });

  it('splits words exactly where the regular expression \\s does, for every UTF-16 code unit', () => {
    const mismatches: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const text = `abcde${String.fromCharCode(code)}fgh`;
      if (approximateTokens(text) !== reference(text)) mismatches.push(code.toString(16));
    }
    expect(mismatches).toEqual([]);
  });
});
