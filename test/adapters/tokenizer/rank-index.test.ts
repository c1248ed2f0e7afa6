import { describe, expect, it } from 'vitest';
import { RankIndex } from '../../../src/adapters/tokenizer/rank-index.js';

/** An index over tokens given as byte strings, in rank order ('' for an unused rank). */
function indexOf(tokens: readonly string[]): RankIndex {
  const bytes: number[] = [];
  const offsets = [0];
  for (const token of tokens) {
    for (let at = 0; at < token.length; at++) bytes.push(token.charCodeAt(at));
    offsets.push(bytes.length);
  }
  return new RankIndex(Uint8Array.from(bytes), Uint32Array.from(offsets));
}

describe('RankIndex', () => {
  it('finds each token by a range of a string, as a Map of its byte strings would', () => {
    const tokens = ['a', 'b', 'ab', '', ' the', 'th', '\u00e9', '\u00c3\u00a9'];
    const index = indexOf(tokens);
    const map = new Map<string, number>();
    tokens.forEach((token, rank) => {
      if (token !== '') map.set(token, rank);
    });
    for (const [token, rank] of map) {
      expect(index.get(`xx${token}yy`, 2, 2 + token.length)).toBe(rank);
    }
    expect(index.get(' then', 0, 5)).toBe(-1);
    expect(index.get(' the', 0, 3)).toBe(-1);
    expect(index.get('', 0, 0)).toBe(-1);
  });

  it('keeps the higher rank of two with the same bytes, as Map#set in rank order does', () => {
    expect(indexOf(['a', 'xy', 'b', 'xy']).get('xy', 0, 2)).toBe(3);
  });

  it('finds no token for units over 255 (no byte string has them)', () => {
    const index = indexOf(['\u0041', '\u00e9']);
    expect(index.get('\u0141', 0, 1)).toBe(-1);
    expect(index.get('\u00e9', 0, 1)).toBe(1);
  });

  it('finds every one of many tokens (the table grows past its first size)', () => {
    const tokens = Array.from({ length: 5000 }, (_, rank) => `t${rank.toString(36)}`);
    const index = indexOf(tokens);
    tokens.forEach((token, rank) => expect(index.get(token, 0, token.length)).toBe(rank));
    expect(index.get('t-1', 0, 3)).toBe(-1);
  });
});
