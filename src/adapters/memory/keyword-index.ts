/**
 * BM25 keyword index in memory: an inverted index (term → posting list of document number
 * and term frequency) per namespace, updated incrementally on add, replace and delete.
 */
import { throwIfAborted } from '../../errors/index.js';
import type {
  CallOptions,
  DeleteTarget,
  Metadata,
  MetadataFilter,
  MetadataValue,
} from '../../ports/common.js';
import type {
  KeywordIndex,
  KeywordMatch,
  KeywordRecord,
  KeywordSearchOptions,
} from '../../ports/keyword-index.js';
import { createTextAnalyzer, TEXT_LANGUAGES, type LanguageSetting } from '../../text/analyzer.js';
import { bm25Idf, tokenizeForIndex } from '../../query/bm25.js';
import { invalid, requirePositiveInteger, requireString } from '../shared/validate.js';
import { compileFilter, matchesFilter, validateFilter } from '../../query/filter.js';
import { decodeSnapshot, encodeSnapshot, snapshotError } from './snapshot.js';

/** Settings of the in-memory BM25 index. */
export interface MemoryKeywordIndexSettings {
  /** BM25 term-frequency saturation (default 0.9, the Anserini/BEIR setting). */
  readonly k1?: number;
  /** BM25 document-length normalisation in [0, 1] (default 0.4, the Anserini/BEIR setting). */
  readonly b?: number;
  /**
   * Language of the default tokenizer: `'auto'` (default) detects it per text, a language code
   * (`'de'`, `'ja'`, …) analyses every document and query in it. Ignored with `tokenize`.
   */
  readonly language?: LanguageSetting;
  /**
   * Turns a text into index terms (default: the text analyser — words segmented, stop words
   * removed, stemmed and accent-folded in the text's language).
   */
  readonly tokenize?: (text: string) => string[];
}

/** The in-memory `KeywordIndex` plus snapshots. */
export interface MemoryKeywordIndex extends KeywordIndex {
  /** Every namespace's postings, ids, metadata and lengths as versioned, checksummed bytes. */
  snapshot(): Uint8Array;
  /**
   * Replaces the whole content with a snapshot's (taken with the same tokenizer). Throws
   * `ValidationError` (path `snapshot`) on corrupt or foreign bytes, leaving the index unchanged.
   */
  restore(bytes: Uint8Array): void;
}

/** A term's posting list: parallel arrays of document numbers and term frequencies. */
interface Posting {
  readonly documents: number[];
  readonly frequencies: number[];
}

/** One namespace's index. Document numbers are reused after deletes. */
interface Space {
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
  /** Per-document score and matched-IDF accumulators, reused across queries. */
  scores: Float64Array;
  matched: Float64Array;
}

function createSpace(): Space {
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
    matched: new Float64Array(0),
  };
}

function checkRecords(records: readonly KeywordRecord[]): void {
  if (!Array.isArray(records)) throw invalid('records', 'must be an array');
  records.forEach((record: KeywordRecord | undefined, index) => {
    if (typeof record?.id !== 'string' || record.id.length === 0) {
      throw invalid(`records.${index}.id`, 'must be a non-empty string');
    }
    if (typeof record.text !== 'string') {
      throw invalid(`records.${index}.text`, `of '${record.id}' must be a string`);
    }
    const metadata: unknown = record.metadata;
    if (
      metadata !== undefined &&
      (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
    ) {
      throw invalid(`records.${index}.metadata`, `of '${record.id}' must be an object`);
    }
  });
}

const hasOwn = (object: object, key: string): boolean =>
  Object.prototype.hasOwnProperty.call(object, key);

/** Records document `number` under its `documentId` metadata value, when it has one. */
function indexDocumentId(space: Space, number: number, metadata: Metadata): void {
  if (!hasOwn(metadata, 'documentId')) return;
  const value = metadata['documentId']!;
  const numbers = space.byDocumentId.get(value);
  if (numbers === undefined) space.byDocumentId.set(value, [number]);
  else numbers.push(number);
}

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
 * The `documentId` values a filter restricts records to (a value, `$eq` or `$in`), or
 * `undefined` when it does not restrict them: then every record has to be tested.
 */
function filterDocumentIds(filter: MetadataFilter): readonly MetadataValue[] | undefined {
  if (!hasOwn(filter, 'documentId')) return undefined;
  const condition = filter['documentId'];
  if (condition === undefined) return undefined;
  if (condition === null || typeof condition !== 'object') return [condition];
  if (condition.$eq !== undefined) return [condition.$eq];
  return condition.$in;
}

/**
 * Ids of the records matching a filter, in the order the records were added. A filter on
 * `documentId` (what ingestion deletes by) looks its documents up instead of testing every
 * record.
 */
function matchingIds(space: Space, filter: MetadataFilter): string[] {
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

function removeDocument(space: Space, id: string): boolean {
  const number = space.numbers.get(id);
  if (number === undefined) return false;
  for (const term of space.terms[number]!) {
    const list = space.postings.get(term);
    if (list === undefined) continue;
    const at = list.documents.indexOf(number);
    if (at < 0) continue;
    // Swap-remove: posting order does not matter for scoring.
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

function addDocument(
  space: Space,
  record: KeywordRecord,
  tokenize: (text: string) => string[],
): void {
  removeDocument(space, record.id);
  const tokens = tokenize(record.text);
  const frequencies = new Map<string, number>();
  for (const token of tokens) frequencies.set(token, (frequencies.get(token) ?? 0) + 1);
  const number = space.free.pop() ?? space.ids.length;
  const { postings } = space;
  for (const [term, frequency] of frequencies) {
    const list = postings.get(term);
    if (list === undefined) {
      postings.set(term, { documents: [number], frequencies: [frequency] });
    } else {
      list.documents.push(number);
      list.frequencies.push(frequency);
    }
  }
  space.numbers.set(record.id, number);
  space.ids[number] = record.id;
  const metadata = Object.freeze({ ...(record.metadata ?? {}) });
  space.metadata[number] = metadata;
  indexDocumentId(space, number, metadata);
  space.added[number] = space.adds++;
  space.terms[number] = [...frequencies.keys()];
  space.lengths[number] = tokens.length;
  space.count++;
  space.totalLength += tokens.length;
}

/** Query terms with their frequency in the query, first occurrence order. */
function queryTerms(tokens: readonly string[]): Map<string, number> {
  const terms = new Map<string, number>();
  for (const token of tokens) terms.set(token, (terms.get(token) ?? 0) + 1);
  return terms;
}

function ensureAccumulators(space: Space): void {
  if (space.scores.length >= space.ids.length) return;
  const size = Math.max(64, space.ids.length * 2);
  space.scores = new Float64Array(size);
  space.matched = new Float64Array(size);
}

/** Better-first order: higher score, then smaller id. */
function compareMatches(a: KeywordMatch, b: KeywordMatch): number {
  return b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

interface Bm25 {
  readonly k1: number;
  readonly b: number;
}

function search(
  space: Space,
  terms: Map<string, number>,
  options: KeywordSearchOptions,
  bm25: Bm25,
) {
  ensureAccumulators(space);
  const { scores, matched, lengths } = space;
  const averageLength = space.totalLength / space.count || 1;
  const touched: number[] = [];
  const maxIdf = bm25Idf(space.count, 0);
  let totalIdf = 0;
  for (const [term, queryFrequency] of terms) {
    const list = space.postings.get(term);
    if (list === undefined) {
      totalIdf += maxIdf;
      continue;
    }
    const { documents, frequencies } = list;
    const idf = bm25Idf(space.count, documents.length);
    totalIdf += idf;
    const weight = idf * queryFrequency * (bm25.k1 + 1);
    const lengthFactor = bm25.k1 * (1 - bm25.b);
    const lengthSlope = (bm25.k1 * bm25.b) / averageLength;
    for (let index = 0; index < documents.length; index++) {
      const number = documents[index]!;
      const frequency = frequencies[index]!;
      if (matched[number] === 0) touched.push(number);
      scores[number]! +=
        (weight * frequency) / (frequency + lengthFactor + lengthSlope * lengths[number]!);
      matched[number]! += idf;
    }
  }
  const allowed = options.filter === undefined ? undefined : compileFilter(options.filter);
  const kept: number[] = [];
  for (const number of touched) {
    if (allowed === undefined || allowed(space.metadata[number]!)) kept.push(number);
  }
  const floor = kthLargest(kept, scores, options.k);
  const matches: KeywordMatch[] = [];
  for (const number of kept) {
    if (scores[number]! < floor) continue;
    matches.push({
      id: space.ids[number]!,
      score: scores[number]!,
      coverage: totalIdf > 0 ? Math.min(1, matched[number]! / totalIdf) : 0,
      metadata: space.metadata[number]!,
    });
  }
  for (const number of touched) {
    scores[number] = 0;
    matched[number] = 0;
  }
  return matches.sort(compareMatches).slice(0, options.k);
}

/**
 * The k-th largest score among the documents (−∞ when there are at most k), duplicates
 * counted: the smallest of a bounded min-heap of the k best, O(n log k) instead of sorting
 * every matched document (which dominated a query over 100,000 records).
 */
function kthLargest(numbers: readonly number[], scores: Float64Array, k: number): number {
  if (numbers.length <= k) return -Infinity;
  const heap = new Float64Array(k);
  let size = 0;
  for (const number of numbers) {
    const value = scores[number]!;
    if (size < k) {
      // Sift up.
      let at = size++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (heap[parent]! <= value) break;
        heap[at] = heap[parent]!;
        at = parent;
      }
      heap[at] = value;
    } else if (value > heap[0]!) {
      // Replace the smallest, sift down.
      let at = 0;
      for (;;) {
        const left = 2 * at + 1;
        if (left >= k) break;
        const right = left + 1;
        const child = right < k && heap[right]! < heap[left]! ? right : left;
        if (heap[child]! >= value) break;
        heap[at] = heap[child]!;
        at = child;
      }
      heap[at] = value;
    }
  }
  return heap[0]!;
}

/**
 * A BM25 keyword index held in memory, with namespaces, metadata filters and a `coverage`
 * per match: the IDF-weighted share of the distinct query terms the record contains (query
 * terms absent from the namespace count with the largest possible IDF).
 */
export function createMemoryKeywordIndex(
  settings: MemoryKeywordIndexSettings = {},
): MemoryKeywordIndex {
  const bm25: Bm25 = { k1: settings.k1 ?? 0.9, b: settings.b ?? 0.4 };
  if (!(bm25.k1 >= 0) || !Number.isFinite(bm25.k1)) throw invalid('settings.k1', 'must be ≥ 0');
  if (!(bm25.b >= 0 && bm25.b <= 1)) throw invalid('settings.b', 'must be in [0, 1]');
  const language: unknown = settings.language;
  if (
    language !== undefined &&
    language !== 'auto' &&
    !(TEXT_LANGUAGES as readonly unknown[]).includes(language)
  ) {
    throw invalid('settings.language', `must be 'auto' or one of ${TEXT_LANGUAGES.join(', ')}`);
  }
  const tokenize =
    settings.tokenize ??
    (settings.language === undefined || settings.language === 'auto'
      ? tokenizeForIndex
      : createTextAnalyzer({ language: settings.language }).terms);
  let spaces = new Map<string, Space>();

  return {
    name: 'memory-bm25',
    specificationVersion: 'v1',

    async add(namespace: string, records: readonly KeywordRecord[], options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(namespace, 'namespace');
      checkRecords(records);
      let space = spaces.get(namespace);
      if (space === undefined) {
        space = createSpace();
        spaces.set(namespace, space);
      }
      for (const record of records) addDocument(space, record, tokenize);
    },

    async search(namespace: string, query: string, options: KeywordSearchOptions) {
      throwIfAborted(options?.signal);
      requireString(namespace, 'namespace');
      if (typeof query !== 'string') throw invalid('query', 'must be a string');
      requirePositiveInteger(options?.k, 'k');
      if (options.filter !== undefined) validateFilter(options.filter);
      const space = spaces.get(namespace);
      const terms = queryTerms(tokenize(query));
      if (space === undefined || space.count === 0 || terms.size === 0) return [];
      return search(space, terms, options, bm25);
    },

    async delete(namespace: string, target: DeleteTarget, options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(namespace, 'namespace');
      const space = spaces.get(namespace);
      let ids: readonly string[];
      if (typeof target === 'object' && target !== null && 'ids' in target) {
        if (!Array.isArray(target.ids)) throw invalid('target.ids', 'must be an array of strings');
        ids = target.ids;
      } else if (typeof target === 'object' && target !== null && 'filter' in target) {
        validateFilter(target.filter);
        ids = space === undefined ? [] : matchingIds(space, target.filter);
      } else {
        throw invalid('target', 'must be { ids } or { filter }');
      }
      if (space === undefined) return 0;
      let removed = 0;
      for (const id of ids) if (removeDocument(space, id)) removed++;
      return removed;
    },

    async count(namespace: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(namespace, 'namespace');
      return spaces.get(namespace)?.count ?? 0;
    },

    snapshot() {
      const namespaces = [...spaces].map(([name, space]) => ({
        name,
        ids: space.ids,
        metadata: space.metadata,
        lengths: space.lengths,
        free: space.free,
        postings: [...space.postings].map(([term, list]) => [
          term,
          list.documents,
          list.frequencies,
        ]),
      }));
      return encodeSnapshot('keywords', { namespaces });
    },

    restore(bytes: Uint8Array) {
      const { json } = decodeSnapshot(bytes, 'keywords');
      spaces = parseKeywordSnapshot(json);
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0;

/** Rebuilds the namespaces of a keyword snapshot, checking every structural invariant. */
function parseKeywordSnapshot(json: unknown): Map<string, Space> {
  if (!isRecord(json) || !Array.isArray(json['namespaces'])) {
    throw snapshotError('has no namespaces list');
  }
  const spaces = new Map<string, Space>();
  json['namespaces'].forEach((entry: unknown, index) => {
    const fail = (what: string) => snapshotError(`namespace ${index} ${what}`);
    if (!isRecord(entry)) throw fail('is not an object');
    const { name, ids, metadata, lengths, free, postings } = entry;
    if (typeof name !== 'string' || name.length === 0 || spaces.has(name)) {
      throw fail('has a missing or duplicate name');
    }
    if (
      !Array.isArray(ids) ||
      !Array.isArray(metadata) ||
      !Array.isArray(lengths) ||
      !Array.isArray(free) ||
      !Array.isArray(postings) ||
      metadata.length !== ids.length ||
      lengths.length !== ids.length
    ) {
      throw fail('has missing or inconsistent document arrays');
    }
    if (!ids.every((id) => typeof id === 'string') || !metadata.every(isRecord)) {
      throw fail('has invalid ids or metadata');
    }
    if (
      !lengths.every(isCount) ||
      !free.every((number) => isCount(number) && number < ids.length)
    ) {
      throw fail('has invalid lengths or free numbers');
    }
    const space = createSpace();
    const freeSet = new Set(free as number[]);
    ids.forEach((id: string, number) => {
      space.ids.push(id);
      space.metadata.push(Object.freeze({ ...(metadata[number] as Metadata) }));
      space.lengths.push(lengths[number] as number);
      space.terms.push([]);
      space.added.push(0);
      if (freeSet.has(number)) return;
      if (id.length === 0 || space.numbers.has(id)) throw fail('has an empty or duplicate id');
      space.numbers.set(id, number);
      space.added[number] = space.adds++;
      indexDocumentId(space, number, space.metadata[number]!);
      space.count++;
      space.totalLength += lengths[number] as number;
    });
    space.free.push(...(free as number[]));
    for (const posting of postings as unknown[]) {
      if (!Array.isArray(posting) || posting.length !== 3) throw fail('has a malformed posting');
      const [term, documents, frequencies] = posting as [unknown, unknown, unknown];
      if (
        typeof term !== 'string' ||
        space.postings.has(term) ||
        !Array.isArray(documents) ||
        !Array.isArray(frequencies) ||
        documents.length !== frequencies.length ||
        documents.length === 0
      ) {
        throw fail('has a malformed posting');
      }
      for (let at = 0; at < documents.length; at++) {
        const number: unknown = documents[at];
        if (!isCount(number) || number >= ids.length || freeSet.has(number)) {
          throw fail(`has a posting of '${term}' for an unknown document`);
        }
        if (!isCount(frequencies[at]) || frequencies[at] === 0) {
          throw fail(`has an invalid frequency in the posting of '${term}'`);
        }
        space.terms[number]!.push(term);
      }
      space.postings.set(term, {
        documents: documents as number[],
        frequencies: frequencies as number[],
      });
    }
    spaces.set(name, space);
  });
  return spaces;
}
