/**
 * The frozen copy of a record's metadata that the memory stores keep. It is built key by key
 * from an empty object, so copies with the same keys in the same order share one hidden class
 * and a turn's reads of a key (`correctionBy`, `section`, `text`) over the chunks it retrieves
 * stay fast lookups. `Object.freeze({ ...metadata })` kept the hidden class of the object it was
 * given: records that came from the ingest workers (structured clones) had one each (297
 * classes for 300 SciFact chunks), and every read then missed V8's lookup caches.
 */
import type { Metadata } from '../../ports/common.js';

/** A frozen copy of `metadata`: its own enumerable keys (symbols too), in order, as spread copies them. */
export function frozenMetadata(metadata: Metadata): Metadata {
  const copy: Record<PropertyKey, unknown> = {};
  const source = metadata as Record<PropertyKey, unknown>;
  for (const key of Object.keys(source)) {
    // An own `__proto__` key (JSON can carry one) stays a key, as in a spread.
    if (key === '__proto__') {
      Object.defineProperty(copy, key, {
        value: source[key],
        writable: true,
        enumerable: true,
        configurable: true,
      });
    } else copy[key] = source[key];
  }
  for (const symbol of Object.getOwnPropertySymbols(source)) {
    if (Object.prototype.propertyIsEnumerable.call(source, symbol)) copy[symbol] = source[symbol];
  }
  return Object.freeze(copy) as Metadata;
}
