/**
 * How the memory session store keeps and pages its records: deep-frozen copies (what it
 * stores and hands out) and the newest-first order of sessions (the cursor format is shared:
 * `adapters/shared/cursor.ts`).
 */
import type { SessionRecord } from '../../ports/chat-records.js';

/** A deep, frozen copy: what the store keeps and hands out. */
export function frozenCopy<T>(value: T): T {
  return deepFreeze(structuredClone(value));
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
