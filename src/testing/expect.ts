/**
 * The assertions of the conformance suites, with no test framework behind them: the subset of
 * the `expect` API the suites use (`toBe`, `toEqual`, `toMatchObject`, …, `.not`,
 * `expect.fail`). A failed assertion throws a {@link ConformanceAssertionError}, which every
 * runner (vitest, jest, `node:test`) reports as a failed test.
 */

/** Thrown by a failed conformance assertion. */
export class ConformanceAssertionError extends Error {
  /** The value checked. */
  readonly actual: unknown;
  /** The value (or bound) it was checked against. */
  readonly expected: unknown;

  constructor(message: string, actual?: unknown, expected?: unknown) {
    super(message);
    this.name = 'AssertionError';
    this.actual = actual;
    this.expected = expected;
  }
}

/** The matchers of one `expect(value)`. */
export interface Matchers {
  /** The same value (`Object.is`). */
  toBe(expected: unknown): void;
  /** Recursively equal; properties holding `undefined` count as absent. */
  toEqual(expected: unknown): void;
  /** Holds at least `expected`'s properties, recursively (arrays element by element). */
  toMatchObject(expected: object): void;
  /** `null`. */
  toBeNull(): void;
  /** Not `undefined`. */
  toBeDefined(): void;
  /** A number greater than `bound`. */
  toBeGreaterThan(bound: number | bigint): void;
  /** A number at least `bound`. */
  toBeGreaterThanOrEqual(bound: number | bigint): void;
  /** A number less than `bound`. */
  toBeLessThan(bound: number | bigint): void;
  /** A number at most `bound`. */
  toBeLessThanOrEqual(bound: number | bigint): void;
  /** Within `10 ** -digits / 2` of `expected` (default 2 digits). */
  toBeCloseTo(expected: number, digits?: number): void;
  /** A `length` of `length`. */
  toHaveLength(length: number): void;
  /** An array holding `item` (`Object.is`) or a string holding `item`. */
  toContain(item: unknown): void;
  /** An instance of `type`. */
  toBeInstanceOf(type: abstract new (...args: never[]) => unknown): void;
  /** The same matchers, negated. */
  readonly not: Omit<Matchers, 'not'>;
}

/** `expect` with the one static helper the suites use. */
export interface Expect {
  /** Matchers for `value`; `message` prefixes every failure. */
  (value: unknown, message?: string): Matchers;
  /** Fails the test with `message`. */
  fail(message: string): never;
}

/** A short, safe rendering of a value for failure messages (cycles, bigints, typed arrays). */
export function describeValue(value: unknown): string {
  const seen = new WeakSet<object>();
  const render = (item: unknown, depth: number): string => {
    if (typeof item === 'string')
      return JSON.stringify(item.length > 200 ? `${item.slice(0, 200)}…` : item);
    if (typeof item === 'bigint') return `${item}n`;
    if (typeof item === 'function') return `[Function ${item.name || 'anonymous'}]`;
    if (typeof item !== 'object' || item === null) return String(item);
    if (seen.has(item)) return '[Circular]';
    if (depth > 4) return Array.isArray(item) ? '[Array]' : '[Object]';
    seen.add(item);
    if (item instanceof Date)
      return `Date(${Number.isNaN(item.getTime()) ? 'invalid' : item.toISOString()})`;
    if (item instanceof Error) return `${item.name}: ${item.message}`;
    if (ArrayBuffer.isView(item)) {
      const values = Array.from(item as unknown as ArrayLike<number>).slice(0, 10);
      return `${item.constructor.name}[${values.join(', ')}${(item as unknown as ArrayLike<number>).length > 10 ? ', …' : ''}]`;
    }
    if (Array.isArray(item)) {
      const shown = item.slice(0, 20).map((entry) => render(entry, depth + 1));
      return `[${shown.join(', ')}${item.length > 20 ? ', …' : ''}]`;
    }
    const entries = Object.entries(item).slice(0, 30);
    return `{ ${entries.map(([key, entry]) => `${key}: ${render(entry, depth + 1)}`).join(', ')} }`;
  };
  return render(value, 0);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Deep equality as `toEqual` has it: `undefined` properties count as absent. */
export function deepEqual(a: unknown, b: unknown, seen = new Map<object, object>()): boolean {
  if (Object.is(a, b)) return true;
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  if (seen.get(a) === b) return true;
  seen.set(a, b);
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && Object.is(a.getTime(), b.getTime());
  }
  if (a instanceof RegExp || b instanceof RegExp) {
    return a instanceof RegExp && b instanceof RegExp && String(a) === String(b);
  }
  if (ArrayBuffer.isView(a) || ArrayBuffer.isView(b)) {
    if (!ArrayBuffer.isView(a) || !ArrayBuffer.isView(b) || a.constructor !== b.constructor) {
      return false;
    }
    const x = a as unknown as ArrayLike<unknown>;
    const y = b as unknown as ArrayLike<unknown>;
    if (x.length !== y.length) return false;
    for (let index = 0; index < x.length; index++) if (!Object.is(x[index], y[index])) return false;
    return true;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, index) => deepEqual(item, b[index], seen));
  }
  if (a instanceof Map || b instanceof Map || a instanceof Set || b instanceof Set) {
    if (a.constructor !== b.constructor) return false;
    return deepEqual(
      [...(a as unknown as Iterable<unknown>)],
      [...(b as unknown as Iterable<unknown>)],
      seen,
    );
  }
  if (a instanceof Error && b instanceof Error && a.message !== b.message) return false;
  const keys = (object: Record<string, unknown>) =>
    Object.keys(object).filter((key) => object[key] !== undefined);
  const keysA = keys(a);
  const keysB = keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key], seen));
}

/** Whether `actual` holds `expected`'s properties, recursively (as `toMatchObject`). */
export function matchesObject(actual: unknown, expected: unknown): boolean {
  if (!isPlainObject(expected) || !isPlainObject(actual)) return deepEqual(actual, expected);
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((item, index) => matchesObject(actual[index], item))
    );
  }
  if (expected instanceof Date || ArrayBuffer.isView(expected)) return deepEqual(actual, expected);
  return Object.keys(expected).every(
    (key) =>
      (Object.hasOwn(actual, key) || key in actual) &&
      matchesObject(actual[key], (expected as Record<string, unknown>)[key]),
  );
}

function numeric(value: unknown, matcher: string, prefix: string): number | bigint {
  if (typeof value === 'number' || typeof value === 'bigint') return value;
  throw new ConformanceAssertionError(
    `${prefix}${matcher} needs a number, got ${describeValue(value)}`,
    value,
  );
}

function lengthOf(value: unknown): number | undefined {
  if (typeof value === 'string') return value.length;
  if (isPlainObject(value) && typeof value['length'] === 'number') return value['length'];
  return undefined;
}

function matchers(actual: unknown, message: string | undefined, negated: boolean): Matchers {
  const prefix = message ? `${message}: ` : '';
  const check = (pass: boolean, description: string, expected?: unknown): void => {
    if (pass !== negated) return;
    throw new ConformanceAssertionError(
      `${prefix}expected ${describeValue(actual)} ${negated ? 'not ' : ''}${description}`,
      actual,
      expected,
    );
  };
  const compare = (
    bound: number | bigint,
    matcher: string,
    test: (x: number | bigint, y: number | bigint) => boolean,
    words: string,
  ): void => {
    check(test(numeric(actual, matcher, prefix), bound), `${words} ${describeValue(bound)}`, bound);
  };
  const result: Omit<Matchers, 'not'> = {
    toBe: (expected) =>
      check(Object.is(actual, expected), `to be ${describeValue(expected)}`, expected),
    toEqual: (expected) =>
      check(deepEqual(actual, expected), `to equal ${describeValue(expected)}`, expected),
    toMatchObject: (expected) =>
      check(matchesObject(actual, expected), `to match ${describeValue(expected)}`, expected),
    toBeNull: () => check(actual === null, 'to be null', null),
    toBeDefined: () => check(actual !== undefined, 'to be defined'),
    toBeGreaterThan: (bound) =>
      compare(bound, 'toBeGreaterThan', (x, y) => x > y, 'to be greater than'),
    toBeGreaterThanOrEqual: (bound) =>
      compare(bound, 'toBeGreaterThanOrEqual', (x, y) => x >= y, 'to be at least'),
    toBeLessThan: (bound) => compare(bound, 'toBeLessThan', (x, y) => x < y, 'to be less than'),
    toBeLessThanOrEqual: (bound) =>
      compare(bound, 'toBeLessThanOrEqual', (x, y) => x <= y, 'to be at most'),
    toBeCloseTo: (expected, digits = 2) => {
      const value = numeric(actual, 'toBeCloseTo', prefix);
      const pass =
        typeof value === 'number' &&
        (value === expected || Math.abs(value - expected) < 10 ** -digits / 2);
      check(pass, `to be close to ${expected} (${digits} digits)`, expected);
    },
    toHaveLength: (length) =>
      check(lengthOf(actual) === length, `to have length ${length}`, length),
    toContain: (item) => {
      const pass =
        typeof actual === 'string'
          ? typeof item === 'string' && actual.includes(item)
          : Array.isArray(actual) && actual.some((entry) => Object.is(entry, item));
      check(pass, `to contain ${describeValue(item)}`, item);
    },
    toBeInstanceOf: (type) =>
      check(
        actual instanceof (type as unknown as new () => unknown),
        `to be an instance of ${type.name}`,
      ),
  };
  return result as Matchers;
}

/** The suites' `expect`: the subset of vitest/jest's `expect` they use, framework-free. */
export const expect: Expect = Object.assign(
  (value: unknown, message?: string): Matchers => {
    const positive = matchers(value, message, false);
    return Object.assign(positive, { not: matchers(value, message, true) });
  },
  {
    fail(message: string): never {
      throw new ConformanceAssertionError(message);
    },
  },
);
