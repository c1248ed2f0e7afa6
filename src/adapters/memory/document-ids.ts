/**
 * Records by their `documentId` metadata value, for the memory stores: ingestion reads, deletes
 * and replaces records by the document ids of a group, and a filter on `documentId` then looks
 * its documents' records up instead of testing every record of the namespace.
 * @module
 */
import type { Metadata, MetadataFilter, MetadataValue } from '../../ports/common.js';

const hasOwn = (object: object, key: string): boolean =>
  Object.prototype.hasOwnProperty.call(object, key);

/**
 * The `documentId` values a filter restricts records to (a value, `$eq` or `$in`), or
 * `undefined` when it does not restrict them: then every record has to be tested.
 */
export function filterDocumentIds(filter: MetadataFilter): readonly MetadataValue[] | undefined {
  if (!hasOwn(filter, 'documentId')) return undefined;
  const condition = filter['documentId'];
  if (condition === undefined) return undefined;
  if (condition === null || typeof condition !== 'object') return [condition];
  if (condition.$eq !== undefined) return [condition.$eq];
  return condition.$in;
}

/** The `documentId` metadata value of a record, or `undefined` when it has none. */
export function documentIdOf(metadata: Metadata): MetadataValue | undefined {
  return hasOwn(metadata, 'documentId') ? metadata['documentId'] : undefined;
}

/**
 * Record ids by `documentId` value: the id itself while a document has one record (most have),
 * a set of them from the second on.
 */
export type DocumentIdIndex = Map<MetadataValue, string | Set<string>>;

/** Records `id` under its `documentId` value, when it has one. */
export function indexDocumentRecord(index: DocumentIdIndex, id: string, metadata: Metadata): void {
  const value = documentIdOf(metadata);
  if (value === undefined) return;
  const ids = index.get(value);
  if (ids === undefined) index.set(value, id);
  else if (typeof ids === 'string') {
    if (ids !== id) index.set(value, new Set([ids, id]));
  } else ids.add(id);
}

/** The ids of the records with a `documentId` value. */
export function documentRecordIds(index: DocumentIdIndex, value: MetadataValue): Iterable<string> {
  const ids = index.get(value);
  if (ids === undefined) return [];
  return typeof ids === 'string' ? [ids] : ids;
}

/** Forgets `id` under its `documentId` value. */
export function unindexDocumentRecord(
  index: DocumentIdIndex,
  id: string,
  metadata: Metadata,
): void {
  const value = documentIdOf(metadata);
  if (value === undefined) return;
  const ids = index.get(value);
  if (ids === undefined) return;
  if (typeof ids === 'string') {
    if (ids === id) index.delete(value);
    return;
  }
  ids.delete(id);
  if (ids.size === 0) index.delete(value);
}
