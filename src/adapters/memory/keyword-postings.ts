/**
 * The posting lists of the memory BM25 index: one namespace's inverted index (term → document
 * numbers and term frequencies), its documents' ids, metadata and lengths, the `documentId`
 * lookup used by deletes, and the incremental add, replace and delete of a document.
 */
import type { KeywordRecord } from '../../ports/keyword-index.js';
import type { Metadata, MetadataFilter, MetadataValue } from '../../ports/common.js';
import { matchesFilter } from '../../query/filter.js';
import { filterDocumentIds } from './document-ids.js';
import { frozenMetadata } from './frozen-metadata.js';

/** A term's posting list: parallel arrays of document numbers and term frequencies. */
interface Posting {
  readonly documents: number[];
  readonly frequencies: number[];
  /**
   * Whether `documents` is in ascending order: true as documents are added (each takes the
   * next number), false once a delete moved a posting or a freed number was reused. A search
   * may then seek documents in the list instead of reading all of it.
   */
  ascending: boolean;
}

/** Whether document numbers are in ascending order. */
export function isAscending(documents: readonly number[]): boolean {
  for (let at = 1; at < documents.length; at++) {
    if (documents[at]! <= documents[at - 1]!) return false;
  }
  return true;
}

/** One namespace's index. Document numbers are reused after deletes. */
export interface Space {
  /** Posting lists per term. */
  postings: Map<string, Posting>;
  numbers: Map<string, number>;
  ids: string[];
  metadata: Metadata[];
  /** Distinct terms of each document, to remove its postings. */
  terms: string[][];
  /** Order in which each document number was (last) added: `numbers`' iteration order. */
  added: number[];
  /** `documentId` metadata value → numbers of the documents with it (for deletes by filter). */
  byDocumentId: Map<MetadataValue, number[]>;
  /** Adds so far, to number `added`. */
  adds: number;
  lengths: number[];
  free: number[];
  count: number;
  totalLength: number;
  /** Per-document score accumulators and scoring slots, reused across queries. */
  scores: Float64Array;
  slots: Int32Array;
  /** The documents a query scores, in the order it reached them. */
  seen: Int32Array;
}

/** An empty namespace. */
export function createSpace(): Space {
  return {
    postings: new Map(),
    numbers: new Map(),
    ids: [],
    metadata: [],
    terms: [],
    added: [],
    byDocumentId: new Map(),
    adds: 0,
    lengths: [],
    free: [],
    count: 0,
    totalLength: 0,
    scores: new Float64Array(0),
    slots: new Int32Array(0),
    seen: new Int32Array(0),
  };
}

const hasOwn = (object: object, key: string): boolean =>
  Object.prototype.hasOwnProperty.call(object, key);

/** Records document `number` under its `documentId` metadata value, when it has one. */
export function indexDocumentId(space: Space, number: number, metadata: Metadata): void {
  if (!hasOwn(metadata, 'documentId')) return;
  const value = metadata['documentId']!;
  const numbers = space.byDocumentId.get(value);
  if (numbers === undefined) space.byDocumentId.set(value, [number]);
  else numbers.push(number);
}

/** Forgets document `number` under its `documentId` metadata value. */
function unindexDocumentId(space: Space, number: number, metadata: Metadata): void {
  if (!hasOwn(metadata, 'documentId')) return;
  const value = metadata['documentId']!;
  const numbers = space.byDocumentId.get(value);
  const at = numbers === undefined ? -1 : numbers.indexOf(number);
  if (at < 0) return;
  if (numbers!.length === 1) space.byDocumentId.delete(value);
  else numbers!.splice(at, 1);
}

/**
 * Ids of the records matching a filter, in the order the records were added. A filter on
 * `documentId` (what ingestion deletes by) looks its documents up instead of testing every
 * record.
 */
export function matchingIds(space: Space, filter: MetadataFilter): string[] {
  const values = filterDocumentIds(filter);
  if (values === undefined) {
    return [...space.numbers]
      .filter(([, number]) => matchesFilter(space.metadata[number]!, filter))
      .map(([id]) => id);
  }
  const candidates: number[] = [];
  for (const value of new Set(values)) {
    for (const number of space.byDocumentId.get(value) ?? []) {
      if (matchesFilter(space.metadata[number]!, filter)) candidates.push(number);
    }
  }
  candidates.sort((a, b) => space.added[a]! - space.added[b]!);
  return candidates.map((number) => space.ids[number]!);
}

/** Removes a document and its postings, freeing its number; false when the id is absent. */
export function removeDocument(space: Space, id: string): boolean {
  const number = space.numbers.get(id);
  if (number === undefined) return false;
  for (const term of space.terms[number]!) {
    const list = space.postings.get(term);
    if (list === undefined) continue;
    const at = list.documents.indexOf(number);
    if (at < 0) continue;
    // Swap-remove: posting order does not matter for scoring.
    if (at < list.documents.length - 1) list.ascending = false;
    list.documents[at] = list.documents[list.documents.length - 1]!;
    list.frequencies[at] = list.frequencies[list.frequencies.length - 1]!;
    list.documents.pop();
    list.frequencies.pop();
    if (list.documents.length === 0) space.postings.delete(term);
  }
  space.totalLength -= space.lengths[number]!;
  space.count--;
  space.numbers.delete(id);
  unindexDocumentId(space, number, space.metadata[number]!);
  space.terms[number] = [];
  space.lengths[number] = 0;
  space.metadata[number] = {};
  space.ids[number] = '';
  space.free.push(number);
  return true;
}

/**
 * Adds a document, replacing the one with its id: tokenized, counted and posted per term. One
 * postings lookup per token, none for a token equal to the one before (the ingest workers list
 * each term's occurrences together): a term's list ends with this document's number once the
 * term has been seen in it (its number is in no list before: `removeDocument` took it out), so a
 * repeat only counts up the last frequency. Postings and the document's distinct terms come out
 * in order of first occurrence.
 */
export function addDocument(
  space: Space,
  record: KeywordRecord,
  tokenize: (text: string) => string[],
): void {
  removeDocument(space, record.id);
  // Terms computed by the caller with this index's analysis (ingest workers) save analysing.
  const tokens = record.terms ?? tokenize(record.text);
  const number = space.free.pop() ?? space.ids.length;
  const { postings } = space;
  const distinct: string[] = [];
  let previous: string | undefined;
  let list: Posting | undefined;
  for (const term of tokens) {
    if (term !== previous) {
      previous = term;
      list = postings.get(term);
      if (list === undefined) {
        list = { documents: [number], frequencies: [1], ascending: true };
        postings.set(term, list);
        distinct.push(term);
        continue;
      }
    }
    const last = list!.documents.length - 1;
    if (list!.documents[last] === number) {
      list!.frequencies[last]!++;
    } else {
      if (number < list!.documents[last]!) list!.ascending = false;
      list!.documents.push(number);
      list!.frequencies.push(1);
      distinct.push(term);
    }
  }
  space.numbers.set(record.id, number);
  space.ids[number] = record.id;
  const metadata = frozenMetadata(record.metadata ?? {});
  space.metadata[number] = metadata;
  indexDocumentId(space, number, metadata);
  space.added[number] = space.adds++;
  space.terms[number] = distinct;
  space.lengths[number] = tokens.length;
  space.count++;
  space.totalLength += tokens.length;
}
