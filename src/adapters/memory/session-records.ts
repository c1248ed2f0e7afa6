/**
 * How the memory session store keeps and pages its records: deep-frozen copies (what it
 * stores and hands out) and the newest-first order of sessions (the cursor format is shared:
 * `adapters/shared/cursor.ts`).
 */
import type { SessionRecord } from '../../ports/chat-records.js';

/** Marks a value `plainFrozenCopy` leaves to `structuredClone`. */
const NOT_PLAIN: unique symbol = Symbol('not plain');

/** Nesting beyond which a value is left to `structuredClone` (which also handles cycles). */
const MAX_DEPTH = 64;

/**
 * A frozen copy of JSON-like data (primitives, arrays without holes, objects whose prototype
 * is `Object.prototype` or null), built and frozen in one walk; `NOT_PLAIN` as soon as
 * anything else appears (a `Date`, a `Map`, a class instance, a function, a symbol, a cycle).
 */
function plainFrozenCopy(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) {
    return typeof value === 'function' || typeof value === 'symbol' ? NOT_PLAIN : value;
  }
  if (depth > MAX_DEPTH) return NOT_PLAIN;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return NOT_PLAIN;
    const keys = Object.keys(value);
    if (keys.length !== value.length) return NOT_PLAIN; // holes or extra properties
    const copy: unknown[] = new Array(value.length);
    for (let index = 0; index < value.length; index++) {
      const item = plainFrozenCopy(value[index], depth + 1);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      copy[index] = item;
    }
    return Object.freeze(copy);
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return NOT_PLAIN;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (key === '__proto__') return NOT_PLAIN; // an own `__proto__` would set the prototype
    const item = plainFrozenCopy((value as Record<string, unknown>)[key], depth + 1);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    copy[key] = item;
  }
  return Object.freeze(copy);
}

/**
 * A deep, frozen copy: what the store keeps and hands out. Records are JSON-like data: they
 * are copied and frozen in one walk (about 4× faster than `structuredClone` and a second walk
 * to freeze, measured on a 6 kB answer record); anything else goes through `structuredClone`.
 */
export function frozenCopy<T>(value: T): T {
  const copy = plainFrozenCopy(value, 0);
  return copy === NOT_PLAIN ? deepFreeze(structuredClone(value)) : (copy as T);
}

/** Freezes a value and everything it holds, in place. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Newest first: createdAt descending, then id descending. */
export function compareNewestFirst(
  a: Pick<SessionRecord, 'createdAt' | 'id'>,
  b: Pick<SessionRecord, 'createdAt' | 'id'>,
): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}
