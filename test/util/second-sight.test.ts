import { describe, expect, it } from 'vitest';

import { createChatEngine } from '../../src/index.js';
import {
  createSecondSightCache,
  forgetTextAnalyses,
  registerTextCache,
} from '../../src/util/second-sight.js';

/** A cache whose computations are counted. */
function counted(capacity = 4) {
  const cache = createSecondSightCache<{ readonly text: string }>(capacity);
  let computed = 0;
  const get = (text: string) =>
    cache.get(text, () => {
      computed++;
      return { text };
    });
  return { cache, get, computed: () => computed };
}

describe('createSecondSightCache', () => {
  it('keeps a value from the second sight of its text on', () => {
    const { get, computed } = counted();
    const first = get('a');
    const second = get('a');
    expect(computed()).toBe(2);
    expect(second).toEqual(first);
    expect(get('a')).toBe(second);
    expect(get('a')).toBe(second);
    expect(computed()).toBe(2);
  });

  it('recomputes when the kept value does not fit the request', () => {
    const cache = createSecondSightCache<{ title: string }>(4);
    cache.get('text', () => ({ title: 'x' }));
    const kept = cache.get('text', () => ({ title: 'x' }));
    expect(
      cache.get(
        'text',
        () => ({ title: 'y' }),
        (value) => value.title === 'x',
      ),
    ).toBe(kept);
    const other = cache.get(
      'text',
      () => ({ title: 'y' }),
      (value) => value.title === 'y',
    );
    expect(other).toEqual({ title: 'y' });
    expect(cache.get('text', () => ({ title: 'z' }))).toBe(other);
  });

  it('evicts the least recently used value beyond its capacity', () => {
    const { get, computed } = counted(2);
    for (const text of ['a', 'a', 'b', 'b']) get(text);
    get('a'); // a is now the most recently used
    for (const text of ['c', 'c']) get(text); // evicts b
    const before = computed();
    get('a');
    get('c');
    expect(computed()).toBe(before);
    get('b');
    expect(computed()).toBe(before + 1);
  });

  it('empties the other text caches enrolled with registerTextCache', () => {
    const analysed = new Map([['Refunds are issued within 14 days.', 1]]);
    registerTextCache(analysed);
    forgetTextAnalyses();
    expect(analysed.size).toBe(0);
  });

  it('leaves a store-owned cache (forgetWithDeletes: false) to its store', () => {
    const cache = createSecondSightCache<number>(4, { forgetWithDeletes: false });
    let computed = 0;
    const get = () => cache.get('a', () => ++computed);
    get();
    get();
    forgetTextAnalyses();
    expect(get()).toBe(2);
    cache.clear();
    expect(get()).toBe(3);
  });

  it('forgets everything with forgetTextAnalyses', () => {
    const { get, computed } = counted();
    get('a');
    get('a');
    forgetTextAnalyses();
    get('a');
    expect(computed()).toBe(3);
  });

  it('is emptied when the engine deletes documents, so no analysis outlives deleted text', async () => {
    const engine = createChatEngine();
    await engine.ingest([{ id: 'd', text: 'Refunds are issued within 14 days.' }]);
    const { get, computed } = counted();
    get('Refunds are issued within 14 days.');
    get('Refunds are issued within 14 days.');
    await engine.deleteDocuments(['d']);
    get('Refunds are issued within 14 days.');
    expect(computed()).toBe(3);
  });
});
