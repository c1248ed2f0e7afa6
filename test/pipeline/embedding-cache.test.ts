import { describe, expect, it } from 'vitest';

import { createEmbeddingCache } from '../../src/pipeline/embedding-cache.js';

const vector = (value: number): Float32Array => new Float32Array([value]);

describe('createEmbeddingCache', () => {
  it('keys entries by embedder id and text', () => {
    const cache = createEmbeddingCache();
    cache.set('e1', 'hello', vector(1));
    expect(cache.get('e1', 'hello')).toEqual(vector(1));
    expect(cache.get('e2', 'hello')).toBeUndefined();
    expect(cache.get('e1', 'hello!')).toBeUndefined();
  });

  it('evicts the least recently used entry when full', () => {
    const cache = createEmbeddingCache({ maxEntries: 2 });
    cache.set('e', 'a', vector(1));
    cache.set('e', 'b', vector(2));
    cache.get('e', 'a');
    cache.set('e', 'c', vector(3));
    expect(cache.get('e', 'b')).toBeUndefined();
    expect(cache.get('e', 'a')).toEqual(vector(1));
    expect(cache.get('e', 'c')).toEqual(vector(3));
    expect(cache.size).toBe(2);
  });

  it('expires entries after the TTL with an injected clock', () => {
    let now = 1_000;
    const cache = createEmbeddingCache({ ttlMs: 300_000, now: () => now });
    cache.set('e', 'a', vector(1));
    now += 299_999;
    expect(cache.get('e', 'a')).toEqual(vector(1));
    now += 1;
    expect(cache.get('e', 'a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('defaults to 100 entries', () => {
    const cache = createEmbeddingCache();
    for (let index = 0; index < 150; index++) cache.set('e', `t${index}`, vector(index));
    expect(cache.size).toBe(100);
    expect(cache.get('e', 't49')).toBeUndefined();
    expect(cache.get('e', 't50')).toEqual(vector(50));
    cache.clear();
    expect(cache.size).toBe(0);
  });
});
