/**
 * BM25 keyword index in memory: an inverted index (term → posting list of document number
 * and term frequency) per namespace, updated incrementally on add, replace and delete.
 *
 * This file holds the index's public types, input checks and factory; the parts live beside
 * it: `keyword-postings.ts` (posting lists and document updates), `keyword-scoring.ts` (BM25
 * scoring) and `keyword-snapshot.ts` (snapshot bytes).
 */
import { throwIfAborted } from '../../errors/index.js';
import type { CallOptions, DeleteTarget } from '../../ports/common.js';
import type {
  KeywordIndex,
  KeywordRecord,
  KeywordSearchOptions,
} from '../../ports/keyword-index.js';
import { createTextAnalyzer } from '../../text/analyzer.js';
import { TEXT_LANGUAGES, type LanguageSetting } from '../../text/language-detection.js';
import { tokenizeForIndex } from '../../query/bm25.js';
import { invalid, requirePositiveInteger, requireString } from '../shared/validate.js';
import { validateFilter } from '../../query/filter.js';
import {
  addDocument,
  createSpace,
  matchingIds,
  removeDocument,
  type Space,
} from './keyword-postings.js';
import { queryTerms, search, type Bm25 } from './keyword-scoring.js';
import { snapshotSpaces, spacesFromSnapshot } from './keyword-snapshot.js';

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

/** Checks records: non-empty string ids, string texts, object metadata. */
function checkRecords(records: readonly KeywordRecord[]): void {
  if (!Array.isArray(records)) throw invalid('records', 'must be an array');
  records.forEach((record: KeywordRecord | undefined, index) => {
    if (typeof record?.id !== 'string' || record.id.length === 0) {
      throw invalid(`records.${index}.id`, 'must be a non-empty string');
    }
    if (typeof record.text !== 'string') {
      throw invalid(`records.${index}.text`, `of '${record.id}' must be a string`);
    }
    if (record.terms !== undefined && !Array.isArray(record.terms)) {
      throw invalid(`records.${index}.terms`, `of '${record.id}' must be an array of strings`);
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

/**
 * The index terms of a text as the in-memory index analyses it by default in `language`
 * (`'auto'`: detected per text). The engine's ingest workers compute records' `terms` with it.
 */
export function defaultKeywordTerms(
  language: LanguageSetting | undefined,
): (text: string) => string[] {
  return language === undefined || language === 'auto'
    ? tokenizeForIndex
    : createTextAnalyzer({ language }).terms;
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
  const tokenize = settings.tokenize ?? defaultKeywordTerms(settings.language);
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
      return snapshotSpaces(spaces);
    },

    restore(bytes: Uint8Array) {
      spaces = spacesFromSnapshot(bytes);
    },
  };
}
