import { describe, expect as vitestExpect, it } from 'vitest';
import {
  ConformanceAssertionError,
  deepEqual,
  describeValue,
  expect,
  matchesObject,
} from '../../src/testing/expect.js';

/** The failure message of `action`, or undefined when it passed. */
function failure(action: () => void): string | undefined {
  try {
    action();
    return undefined;
  } catch (error) {
    vitestExpect(error).toBeInstanceOf(ConformanceAssertionError);
    return (error as Error).message;
  }
}

describe('the suites’ own expect', () => {
  it('toEqual ignores undefined properties but not values, and compares typed arrays', () => {
    vitestExpect(deepEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    vitestExpect(deepEqual({ a: 1 }, { a: 2 })).toBe(false);
    vitestExpect(deepEqual([1, [2, { c: 'x' }]], [1, [2, { c: 'x' }]])).toBe(true);
    vitestExpect(deepEqual([1, 2], [1, 2, 3])).toBe(false);
    vitestExpect(deepEqual(new Float32Array([1, 2]), new Float32Array([1, 2]))).toBe(true);
    vitestExpect(deepEqual(new Float32Array([1, 2]), new Float64Array([1, 2]))).toBe(false);
    vitestExpect(deepEqual(new Date(5), new Date(5))).toBe(true);
    vitestExpect(deepEqual(new Date(5), new Date(6))).toBe(false);
    vitestExpect(deepEqual([1], { 0: 1 })).toBe(false);
    vitestExpect(deepEqual(null, {})).toBe(false);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = cyclic;
    const twin: Record<string, unknown> = { a: 1 };
    twin['self'] = twin;
    vitestExpect(deepEqual(cyclic, twin)).toBe(true);
  });

  it('toMatchObject checks a subset, arrays element by element', () => {
    vitestExpect(matchesObject({ a: 1, b: { c: 2, d: 3 } }, { b: { c: 2 } })).toBe(true);
    vitestExpect(matchesObject({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    vitestExpect(matchesObject({ list: [{ a: 1, b: 2 }] }, { list: [{ a: 1 }] })).toBe(true);
    vitestExpect(matchesObject({ list: [{ a: 1 }, { a: 2 }] }, { list: [{ a: 1 }] })).toBe(false);
    vitestExpect(matchesObject(new Error('x'), { message: 'x' })).toBe(true);
  });

  it('passes and fails each matcher, negated too, naming the values', () => {
    vitestExpect(failure(() => expect(1).toBe(1))).toBeUndefined();
    vitestExpect(failure(() => expect(1, 'count').toBe(2))).toBe('count: expected 1 to be 2');
    vitestExpect(failure(() => expect(1).not.toBe(1))).toBe('expected 1 not to be 1');
    vitestExpect(failure(() => expect({ a: [1] }).toEqual({ a: [1] }))).toBeUndefined();
    vitestExpect(failure(() => expect({ a: [1] }).toEqual({ a: [2] }))).toContain('to equal');
    vitestExpect(failure(() => expect(null).toBeNull())).toBeUndefined();
    vitestExpect(failure(() => expect(0).toBeNull())).toBe('expected 0 to be null');
    vitestExpect(failure(() => expect(0).not.toBeNull())).toBeUndefined();
    vitestExpect(failure(() => expect(undefined).toBeDefined())).toBeDefined();
    vitestExpect(failure(() => expect(2).toBeGreaterThan(1))).toBeUndefined();
    vitestExpect(failure(() => expect(1).toBeGreaterThan(1))).toBeDefined();
    vitestExpect(failure(() => expect(1).toBeGreaterThanOrEqual(1))).toBeUndefined();
    vitestExpect(failure(() => expect(1).toBeLessThan(1))).toBeDefined();
    vitestExpect(failure(() => expect(1).toBeLessThanOrEqual(1))).toBeUndefined();
    vitestExpect(failure(() => expect('1').toBeGreaterThan(0))).toContain('needs a number');
    vitestExpect(failure(() => expect(0.1 + 0.2).toBeCloseTo(0.3, 6))).toBeUndefined();
    vitestExpect(failure(() => expect(0.31).toBeCloseTo(0.3, 6))).toBeDefined();
    vitestExpect(failure(() => expect([1, 2]).toHaveLength(2))).toBeUndefined();
    vitestExpect(failure(() => expect('abc').toHaveLength(2))).toBeDefined();
    vitestExpect(failure(() => expect([1, 2]).toContain(2))).toBeUndefined();
    vitestExpect(failure(() => expect('abc').toContain('bc'))).toBeUndefined();
    vitestExpect(failure(() => expect([1, 2]).not.toContain(3))).toBeUndefined();
    vitestExpect(failure(() => expect([1, 2]).not.toContain(2))).toBeDefined();
    vitestExpect(failure(() => expect(new Float32Array(1)).toBeInstanceOf(Float32Array))).toBe(
      undefined,
    );
    vitestExpect(failure(() => expect([]).toBeInstanceOf(Float32Array))).toContain('Float32Array');
    vitestExpect(failure(() => expect({ a: 1, b: 2 }).toMatchObject({ a: 1 }))).toBeUndefined();
    vitestExpect(failure(() => expect.fail('stop'))).toBe('stop');
  });

  it('renders hostile values in messages without throwing', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    vitestExpect(describeValue(cyclic)).toBe('{ self: [Circular] }');
    vitestExpect(describeValue(10n)).toBe('10n');
    vitestExpect(describeValue('a\u0000b\ud800')).toBe(JSON.stringify('a\u0000b\ud800'));
    vitestExpect(describeValue('x'.repeat(10_000)).length).toBeLessThan(210);
    vitestExpect(describeValue(new Float32Array(100))).toContain('Float32Array[0, 0');
    vitestExpect(failure(() => expect(Symbol('s')).toBe(1))).toContain('Symbol(s)');
  });
});
