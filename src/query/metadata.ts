/**
 * What a metadata value is: the one definition every store, filter and chunker shares
 * (a record's metadata is flat: each field one of these values).
 */
import type { MetadataValue } from '../ports/common.js';

/** A metadata value: a string, a finite number, a boolean or null. */
export function isMetadataValue(value: unknown): value is MetadataValue {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}
