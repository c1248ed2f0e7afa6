/**
 * `KeywordIndex` on SQLite FTS5. Records are indexed by the same terms as the in-memory
 * BM25 index (lower-cased words minus stop words), stored space-separated in the FTS5 table,
 * so both indexes match the same records; a query matches records containing ANY of its
 * terms (`"a" OR "b"`; FTS5 alone would require all). Scores are FTS5's `bm25()` negated
 * (higher is better; k1 = 1.2, b = 0.75, statistics over the whole file). `coverage` is the
 * IDF-weighted share of the distinct query terms a record contains, with document
 * frequencies counted in the namespace. Metadata filters run in SQL (`json_type` /
 * `json_extract`), so `k` applies after filtering.
 */
import { throwIfAborted } from '../../errors/index.js';
import type { CallOptions, DeleteTarget, Metadata, MetadataFilter } from '../../ports/common.js';
import type {
  KeywordIndex,
  KeywordMatch,
  KeywordRecord,
  KeywordSearchOptions,
} from '../../ports/keyword-index.js';
import { matchesFilter, validateFilter } from '../../query/filter.js';
import { bm25Idf, tokenizeForIndex } from '../../query/bm25.js';
import { fromJson, toJson, type Row } from '../sql/records.js';
import { invalid, requirePositiveInteger, requireString } from '../shared/validate.js';
import type { SqliteDatabase } from './database.js';
import { compileFilter } from './filter-sql.js';

function checkRecords(records: readonly KeywordRecord[]): void {
  if (!Array.isArray(records)) throw invalid('records', 'must be an array');
  records.forEach((record: KeywordRecord | undefined, index) => {
    requireString(record?.id, `records.${index}.id`);
    if (typeof record!.text !== 'string') {
      throw invalid(`records.${index}.text`, `of '${record!.id}' must be a string`);
    }
    const metadata: unknown = record!.metadata;
    if (
      metadata !== undefined &&
      (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
    ) {
      throw invalid(`records.${index}.metadata`, `of '${record!.id}' must be an object`);
    }
  });
}

/** An FTS5 query matching any of the terms. */
function anyTerm(terms: readonly string[]): string {
  return terms.map((term) => `"${term.replace(/"/g, '""')}"`).join(' OR ');
}

/** Builds the FTS5 `KeywordIndex` of an open, migrated database. */
export function createSqliteKeywordIndex(
  database: SqliteDatabase,
  name = 'sqlite-fts5',
): KeywordIndex {
  const statement = {
    find: database.prepare('SELECT doc FROM keyword_records WHERE namespace = ? AND id = ?'),
    deleteText: database.prepare('DELETE FROM keyword_fts WHERE rowid = ?'),
    deleteRecord: database.prepare('DELETE FROM keyword_records WHERE doc = ?'),
    insertRecord: database.prepare(
      'INSERT INTO keyword_records (namespace, id, metadata) VALUES (?, ?, ?)',
    ),
    insertText: database.prepare('INSERT INTO keyword_fts (rowid, terms) VALUES (?, ?)'),
    count: database.prepare('SELECT COUNT(*) AS count FROM keyword_records WHERE namespace = ?'),
    frequency: database.prepare(
      `SELECT COUNT(*) AS count FROM keyword_fts JOIN keyword_records r ON r.doc = keyword_fts.rowid
       WHERE keyword_fts MATCH ? AND r.namespace = ?`,
    ),
    all: database.prepare('SELECT doc, metadata FROM keyword_records WHERE namespace = ?'),
  };
  const searches = new Map<string, ReturnType<SqliteDatabase['prepare']>>();
  const searchStatement = (where: string, limited: boolean) => {
    const key = `${where}|${limited}`;
    let found = searches.get(key);
    if (!found) {
      found = database.prepare(
        `SELECT r.id AS id, r.metadata AS metadata, keyword_fts.terms AS terms,
                -bm25(keyword_fts) AS score
         FROM keyword_fts JOIN keyword_records r ON r.doc = keyword_fts.rowid
         WHERE keyword_fts MATCH ? AND r.namespace = ? AND (${where})
         ORDER BY bm25(keyword_fts), r.id ${limited ? 'LIMIT ?' : ''}`,
      );
      if (searches.size < 100) searches.set(key, found);
    }
    return found;
  };

  function remove(doc: number): void {
    statement.deleteText.run(doc);
    statement.deleteRecord.run(doc);
  }

  const add = database.transaction((namespace: string, records: readonly KeywordRecord[]) => {
    for (const record of records) {
      const existing = statement.find.get(namespace, record.id) as { doc: number } | undefined;
      if (existing) remove(existing.doc);
      const { lastInsertRowid } = statement.insertRecord.run(
        namespace,
        record.id,
        toJson(record.metadata ?? {}),
      );
      statement.insertText.run(lastInsertRowid, tokenizeForIndex(record.text).join(' '));
    }
  });

  const removeIds = database.transaction((namespace: string, ids: readonly string[]) => {
    let removed = 0;
    for (const id of new Set(ids)) {
      const found = statement.find.get(namespace, id) as { doc: number } | undefined;
      if (found) {
        remove(found.doc);
        removed++;
      }
    }
    return removed;
  });

  const removeMatching = database.transaction((namespace: string, filter: MetadataFilter) => {
    const docs = docsMatching(namespace, filter);
    for (const doc of docs) remove(doc);
    return docs.length;
  });

  function docsMatching(namespace: string, filter: MetadataFilter): number[] {
    const compiled = compileFilter('metadata', filter);
    if (compiled === null) {
      return (statement.all.all(namespace) as Row[])
        .filter((row) => matchesFilter(fromJson<Metadata>(row['metadata']), filter))
        .map((row) => Number(row['doc']));
    }
    return (
      database
        .prepare(`SELECT doc FROM keyword_records WHERE namespace = ? AND (${compiled.sql})`)
        .all(namespace, ...compiled.params) as Row[]
    ).map((row) => Number(row['doc']));
  }

  return {
    name,
    specificationVersion: 'v1',

    async add(namespace: string, records: readonly KeywordRecord[], options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(namespace, 'namespace');
      checkRecords(records);
      add.immediate(namespace, records);
    },

    async search(namespace: string, query: string, options: KeywordSearchOptions) {
      throwIfAborted(options?.signal);
      requireString(namespace, 'namespace');
      if (typeof query !== 'string') throw invalid('query', 'must be a string');
      const k = requirePositiveInteger(options?.k, 'k');
      if (options.filter !== undefined) validateFilter(options.filter);
      const terms = [...new Set(tokenizeForIndex(query))];
      if (terms.length === 0) return [];
      const match = anyTerm(terms);
      const filter = options.filter;
      const compiled =
        filter === undefined ? { sql: '1', params: [] } : compileFilter('r.metadata', filter);
      let rows: Row[];
      if (compiled === null) {
        rows = (searchStatement('1', false).all(match, namespace) as Row[])
          .filter((row) => matchesFilter(fromJson<Metadata>(row['metadata']), filter!))
          .slice(0, k);
      } else {
        rows = searchStatement(compiled.sql, true).all(
          match,
          namespace,
          ...compiled.params,
          k,
        ) as Row[];
      }
      if (rows.length === 0) return [];

      // Coverage: IDF-weighted share of the distinct query terms each match contains.
      const total = (statement.count.get(namespace) as { count: number }).count;
      const idf = new Map(
        terms.map((term) => {
          const frequency = (
            statement.frequency.get(anyTerm([term]), namespace) as {
              count: number;
            }
          ).count;
          return [term, bm25Idf(total, frequency)] as const;
        }),
      );
      let totalIdf = 0;
      for (const value of idf.values()) totalIdf += value;
      return rows.map((row): KeywordMatch => {
        const present = new Set(String(row['terms']).split(' '));
        let matched = 0;
        for (const [term, value] of idf) if (present.has(term)) matched += value;
        return {
          id: String(row['id']),
          score: Number(row['score']),
          coverage: totalIdf > 0 ? Math.min(1, matched / totalIdf) : 0,
          metadata: fromJson<Metadata>(row['metadata']),
        };
      });
    },

    async delete(namespace: string, target: DeleteTarget, options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(namespace, 'namespace');
      if (typeof target === 'object' && target !== null && 'ids' in target) {
        if (!Array.isArray(target.ids)) throw invalid('target.ids', 'must be an array of strings');
        return removeIds.immediate(namespace, target.ids);
      }
      if (typeof target === 'object' && target !== null && 'filter' in target) {
        validateFilter(target.filter);
        return removeMatching.immediate(namespace, target.filter);
      }
      throw invalid('target', 'must be { ids } or { filter }');
    },

    async count(namespace: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(namespace, 'namespace');
      return (statement.count.get(namespace) as { count: number }).count;
    },
  };
}
