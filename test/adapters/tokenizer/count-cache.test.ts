import { describe, expect, it, vi } from 'vitest';
import { withCountCache } from '../../../src/adapters/tokenizer/count-cache.js';
import type { Tokenizer } from '../../../src/ports/tokenizer.js';

const words: Tokenizer = {
  name: 'words',
  count: (text) => text.split(' ').length,
  encode: (text) => text.split(' ').map((_, index) => index),
  decode: () => '',
};

describe('withCountCache', () => {
  it('counts a long text once and then answers from memory', () => {
    const count = vi.spyOn(words, 'count');
    const cached = withCountCache(words, { minLength: 5 });
    expect(cached.count('a long text here')).toBe(4);
    expect(cached.count('a long text here')).toBe(4);
    expect(count).toHaveBeenCalledTimes(1);
    expect(cached.count('abc')).toBe(1);
    expect(cached.count('abc')).toBe(1);
    expect(count).toHaveBeenCalledTimes(3);
    count.mockRestore();
  });

  it('forgets the least recently used text beyond maxEntries', () => {
    const count = vi.spyOn(words, 'count');
    const cached = withCountCache(words, { minLength: 1, maxEntries: 2 });
    cached.count('one');
    cached.count('two');
    cached.count('one'); // most recent now: 'two' is the oldest
    cached.count('three'); // evicts 'two'
    count.mockClear();
    cached.count('one');
    expect(count).not.toHaveBeenCalled();
    cached.count('two');
    expect(count).toHaveBeenCalledTimes(1);
    count.mockRestore();
  });

  it('clear forgets every remembered text', () => {
    const count = vi.spyOn(words, 'count');
    const cached = withCountCache(words, { minLength: 1 });
    cached.count('my refund PIN is 4417');
    cached.clear();
    count.mockClear();
    cached.count('my refund PIN is 4417');
    expect(count).toHaveBeenCalledTimes(1);
    count.mockRestore();
  });
});
