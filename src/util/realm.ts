/**
 * Type checks that hold across JavaScript realms. `instanceof` compares a value's prototype
 * chain with the current realm's constructor, so it is false for a value made in another
 * realm: a `node:vm` context, an iframe, a worker sandbox, or an edge runtime (Vercel's
 * `edge-runtime` gives each `Request` a signal whose class is not the global `AbortSignal`).
 * These checks ask what a value is (its internal slots) or what it can do instead.
 */

/**
 * The part of `AbortSignal` cortexis relies on. A signal of any realm has it, and so do the
 * common polyfills (`reason` and `throwIfAborted` are newer and may be missing).
 */
export interface AbortSignalLike {
  /** Whether the signal has fired. */
  readonly aborted: boolean;
  /** Why it fired, when the implementation records it. */
  readonly reason?: unknown;
  /** Subscribes to `abort`. */
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  /** Unsubscribes from `abort`. */
  removeEventListener(type: 'abort', listener: () => void): void;
  /** Throws `reason` when the signal has fired, when the implementation has it. */
  throwIfAborted?(): void;
}

/**
 * Whether `value` can serve as an abort signal: an object with a boolean `aborted` and
 * `addEventListener` / `removeEventListener` functions (`throwIfAborted`, when present, is a
 * function). True for an `AbortSignal` of any realm and for the common polyfills.
 */
export function isAbortSignalLike(value: unknown): value is AbortSignalLike {
  if (typeof value !== 'object' || value === null) return false;
  const signal = value as Record<string, unknown>;
  return (
    typeof signal['aborted'] === 'boolean' &&
    typeof signal['addEventListener'] === 'function' &&
    typeof signal['removeEventListener'] === 'function' &&
    (signal['throwIfAborted'] === undefined || typeof signal['throwIfAborted'] === 'function')
  );
}

/** The local signal that follows each foreign one: one listener per foreign signal, ever. */
const followers = new WeakMap<AbortSignalLike, AbortSignal>();

/**
 * An `AbortSignal` of this realm that fires with `signal`: the signal itself when it already is
 * one, otherwise a follower (made once per foreign signal, so a long-lived signal given to many
 * calls gains one listener, not one per call). Platform APIs that insist on a genuine signal
 * (`fetch` in browsers and Deno refuses a polyfill's) accept the result.
 */
export function toLocalAbortSignal(signal: AbortSignalLike): AbortSignal {
  if (
    typeof AbortController === 'undefined' ||
    typeof AbortSignal === 'undefined' ||
    signal instanceof AbortSignal
  ) {
    return signal as AbortSignal;
  }
  const known = followers.get(signal);
  if (known) return known;
  const controller = new AbortController();
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  followers.set(signal, controller.signal);
  return controller.signal;
}

// %TypedArray%.prototype[Symbol.toStringTag] reads the array's internal type name, so unlike
// `instanceof` it holds across realms, and unlike `Object.prototype.toString` it cannot be
// spoofed by an own `Symbol.toStringTag`. It is undefined for anything but a typed array.
const typedArrayName = Object.getOwnPropertyDescriptor(
  Object.getPrototypeOf(Uint8Array.prototype) as object,
  Symbol.toStringTag,
)?.get as ((this: unknown) => string | undefined) | undefined;

/** The typed array kind of `value` (`'Float32Array'`, `'Uint8Array'`, …) in any realm, or undefined. */
export function typedArrayKind(value: unknown): string | undefined {
  if (!ArrayBuffer.isView(value)) return undefined;
  if (typedArrayName) return typedArrayName.call(value);
  // Engines without the accessor (none known): the tag Object.prototype.toString reports.
  const tag = Object.prototype.toString.call(value);
  return tag === '[object DataView]' ? undefined : tag.slice(8, -1);
}

/** Whether `value` is a `Float32Array` of any realm. */
export function isFloat32Array(value: unknown): value is Float32Array {
  return typedArrayKind(value) === 'Float32Array';
}

/** Whether `value` is a `Uint8Array` (a Node `Buffer` included) of any realm. */
export function isUint8Array(value: unknown): value is Uint8Array {
  return typedArrayKind(value) === 'Uint8Array';
}
