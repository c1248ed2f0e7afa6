/**
 * Records by the value of one metadata key, for the memory stores: ingestion reads, deletes and
 * replaces records by the document ids of a group, recall asks for the records of one session
 * or user, and a filter on such a key then looks its records up instead of testing every record
 * of the namespace.
 * @module
 */
import type { Metadata, MetadataFilter, MetadataValue } from '../../ports/common.js';

const hasOwn = (object: object, key: string): boolean =>
  Object.prototype.hasOwnProperty.call(object, key);

/**
 * The values of `key` a filter restricts records to (a value, `$eq` or `$in`), or `undefined`
 * when it does not restrict them: then every record has to be tested.
 */
export function filterValues(
  filter: MetadataFilter,
  key: string,
): readonly MetadataValue[] | undefined {
  if (!hasOwn(filter, key)) return undefined;
  const condition = filter[key];
  if (condition === undefined) return undefined;
  if (condition === null || typeof condition !== 'object') return [condition];
  if (condition.$eq !== undefined) return [condition.$eq];
  return condition.$in;
}

/** The `documentId` values a filter restricts records to, or `undefined` (`filterValues`). */
export function filterDocumentIds(filter: MetadataFilter): readonly MetadataValue[] | undefined {
  return filterValues(filter, 'documentId');
}

/**
 * Record ids by the value of one metadata key: the id itself while a value has one record (most
 * documents, no session), a set of them from the second on.
 */
export type RecordIndex = Map<MetadataValue, string | Set<string>>;

/** Records `id` under its value of `key`, when it has one. */
export function indexRecord(index: RecordIndex, key: string, id: string, metadata: Metadata): void {
  if (!hasOwn(metadata, key)) return;
  const value = metadata[key]!;
  const ids = index.get(value);
  if (ids === undefined) index.set(value, id);
  else if (typeof ids === 'string') {
    if (ids !== id) index.set(value, new Set([ids, id]));
  } else ids.add(id);
}

/** The ids of the records with a value. */
export function indexedRecordIds(index: RecordIndex, value: MetadataValue): Iterable<string> {
  const ids = index.get(value);
  if (ids === undefined) return [];
  return typeof ids === 'string' ? [ids] : ids;
}

/** Forgets `id` under its value of `key`. */
export function unindexRecord(
  index: RecordIndex,
  key: string,
  id: string,
  metadata: Metadata,
): void {
  if (!hasOwn(metadata, key)) return;
  const value = metadata[key]!;
  const ids = index.get(value);
  if (ids === undefined) return;
  if (typeof ids === 'string') {
    if (ids === id) index.delete(value);
    return;
  }
  ids.delete(id);
  if (ids.size === 0) index.delete(value);
}
