import { describe, expect, it } from 'vitest';
import { frozenMetadata } from '../../../src/adapters/memory/frozen-metadata.js';
import type { Metadata } from '../../../src/ports/common.js';

describe('frozenMetadata', () => {
  it('copies what a spread copies, in the same order, frozen', () => {
    const tag = Symbol('tag');
    const source = JSON.parse('{"b":1,"a":"x","2":true,"__proto__":"kept","n":null}') as Record<
      PropertyKey,
      unknown
    >;
    Object.defineProperty(source, 'hidden', { value: 1, enumerable: false });
    source[tag] = 'symbol';
    const copy = frozenMetadata(source as Metadata) as Record<PropertyKey, unknown>;
    const spread = { ...source };
    expect(Reflect.ownKeys(copy)).toEqual(Reflect.ownKeys(spread));
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toBe('kept');
    expect(copy[tag]).toBe('symbol');
    expect(copy['hidden']).toBeUndefined();
    expect(Object.isFrozen(copy)).toBe(true);
    expect(copy).not.toBe(source);
  });
});
