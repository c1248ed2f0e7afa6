import { describe, expect, it, vi } from 'vitest';
import { frozenCopy } from '../../../src/adapters/memory/session-records.js';

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

describe('frozenCopy', () => {
  const record = {
    id: 'm1',
    content: 'text',
    confidence: null,
    missing: undefined,
    zero: -0,
    sources: [{ chunkId: 'c1', score: 0.5, metadata: { page: 3, tags: ['a', 'b'] } }],
    nested: Object.assign(Object.create(null) as object, { deep: { deeper: [1, [2, [3]]] } }),
  };

  it('copies JSON-like records without structuredClone, deep-frozen and equal', () => {
    const clone = vi.spyOn(globalThis, 'structuredClone');
    try {
      const copy = frozenCopy(record);
      expect(clone).not.toHaveBeenCalled();
      expect(copy).toEqual(structuredClone(record));
      expect(Object.is(copy.zero, -0)).toBe(true);
      expect(Object.hasOwn(copy, 'missing')).toBe(true);
      expect(copy.sources).not.toBe(record.sources);
      expect(copy.sources[0]!.metadata).not.toBe(record.sources[0]!.metadata);
      expect(isDeepFrozen(copy)).toBe(true);
      expect(Object.isFrozen(record)).toBe(false); // the input is left alone
    } finally {
      clone.mockRestore();
    }
  });

  it('leaves anything else to structuredClone: dates, maps, cycles, an own __proto__', () => {
    const at = new Date('2024-01-01T00:00:00.000Z');
    const withDate = frozenCopy({ at, list: [new Map([['k', 1]])] });
    expect(withDate.at).toBeInstanceOf(Date);
    expect(withDate.at.getTime()).toBe(at.getTime());
    expect(withDate.list[0]).toBeInstanceOf(Map);
    expect(Object.isFrozen(withDate)).toBe(true);

    const cyclic: { self?: unknown; name: string } = { name: 'loop' };
    cyclic.self = cyclic;
    const copy = frozenCopy(cyclic);
    expect(copy.self).toBe(copy);

    const proto = frozenCopy(JSON.parse('{"__proto__": {"polluted": true}}') as object);
    expect(Object.hasOwn(proto, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);

    const sparse = frozenCopy({ list: [1, , 3] });
    expect(1 in sparse.list).toBe(false);
  });

  it('still rejects what structuredClone rejects', () => {
    expect(() => frozenCopy({ call: () => 1 })).toThrow();
    expect(() => frozenCopy({ key: Symbol('s') })).toThrow();
  });
});
