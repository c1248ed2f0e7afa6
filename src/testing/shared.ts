import { expect } from './expect.js';
import { CortexisError } from '../errors/index.js';
import type { ErrorCode } from '../errors/index.js';
import { ulid } from '../util/ids.js';

/** Options every conformance suite takes. */
export interface SuiteOptions<Adapter> {
  /** Makes the adapter under test; called before every test. */
  readonly create: () => Adapter | Promise<Adapter>;
  /** Releases an adapter `create` made (close connections, files); called after every test. */
  readonly destroy?: ((adapter: Adapter) => void | Promise<void>) | undefined;
  /** Title of the `describe` block (default: the port name and the adapter's `name`). */
  readonly title?: string | undefined;
}

/**
 * Capabilities an adapter lacks, each with the reason it lacks it. The tests needing a
 * listed capability are skipped and the reason is printed in their title.
 */
export type SkipReasons<Capability extends string> = {
  readonly [Key in Capability]?: string | undefined;
};

/** A name no other test (or earlier run against a persistent store) has used. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${ulid().toLowerCase()}`;
}

/** The test title, with the skip reason appended when the test is skipped. */
export function titled(title: string, reason: string | undefined): string {
  return reason ? `${title} [skipped: ${reason}]` : title;
}

/** An `AbortSignal` that has already fired. */
export function abortedSignal(): AbortSignal {
  const controller = new AbortController();
  controller.abort(new Error('aborted by the conformance suite'));
  return controller.signal;
}

/** Runs `action` and asserts it throws or rejects with a `CortexisError` of `code`. */
export async function expectErrorCode(
  action: () => unknown,
  code: ErrorCode,
  what = 'the call',
): Promise<CortexisError> {
  let error: unknown;
  let threw = false;
  try {
    await action();
  } catch (caught) {
    threw = true;
    error = caught;
  }
  if (!threw) expect.fail(`${what} should have rejected with code '${code}' but resolved`);
  expect(
    CortexisError.isInstance(error),
    `${what} should reject with a CortexisError, got ${String(error)}`,
  ).toBe(true);
  expect((error as CortexisError).code, `${what}: error code`).toBe(code);
  return error as CortexisError;
}

/** Every item of an async iterable, in order. */
export async function collect<Item>(iterable: AsyncIterable<Item>): Promise<Item[]> {
  const items: Item[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

/** Cosine similarity of two equally long vectors. */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < a.length; index++) {
    const x = a[index] ?? 0;
    const y = b[index] ?? 0;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}
