/**
 * `KeywordIndex` on PostgreSQL: an inverted index in tables, so every app instance searches
 * what any instance added. Texts are analysed in JS with the in-memory BM25 index's
 * tokenizer (lower-cased words minus stop words, lightly stemmed), so both indexes see the
 * same terms; `keyword_postings` holds one row per record and distinct term (frequency and
 * record length included), `keyword_namespaces` each namespace's record count and total
 * length. A search is one statement: document frequencies by index-only counts on the
 * postings, BM25 (Lucene IDF, k1 0.9, b 0.4 by default) summed over the query terms'
 * postings, the metadata filter compiled to SQL on jsonb, the best `k` after filtering. The
 * scores, `coverage` and order are the in-memory index's. Writes to a namespace take its
 * `keyword_namespaces` row lock first, so concurrent writers apply one after another and the
 * statistics always match the postings.
 */
import { ConfigError, throwIfAborted } from '../../errors/index.js';
import type { CallOptions, DeleteTarget, Metadata } from '../../ports/common.js';
import type {
  KeywordIndex,
  KeywordMatch,
  KeywordRecord,
  KeywordSearchOptions,
} from '../../ports/keyword-index.js';
import { validateFilter } from '../../query/filter.js';
import { tokenizeForIndex } from '../../query/bm25.js';
import type { Row } from '../sql/records.js';
import {
  flatMetadata,
  invalid,
  requirePositiveInteger,
  requireString,
} from '../shared/validate.js';
import { transaction, type PgPool, type PgQueryable } from './database.js';
import { binder, filterToSql } from './filter-sql.js';

/** Settings of the Postgres keyword index (`keywordIndex` of `createPostgresStores`). */
export interface PostgresKeywordIndexSettings {
  /** BM25 term-frequency saturation (default 0.9, as the in-memory index). */
  readonly k1?: number | undefined;
  /** BM25 document-length normalisation in [0, 1] (default 0.4, as the in-memory index). */
  readonly b?: number | undefined;
  /**
   * Turns a text into index terms (default: the in-memory index's tokenizer). Terms are
   * stored, so every instance sharing the schema must use the same function.
   */
  readonly tokenize?: ((text: string) => string[]) | undefined;
}

/** Records per insert statement. */
const INSERT_BATCH = 500;
/** Longer terms are cut to this many code points (a B-tree key holds about 2.7 kB). */
const MAX_TERM_LENGTH = 256;

/** A record ready to write: its analysed terms and the JSON of its metadata. */
interface Prepared {
  readonly id: string;
  readonly text: string;
  readonly metadata: string;
  readonly length: number;
  readonly terms: Map<string, number>;
}

interface Bm25 {
  readonly k1: number;
  readonly b: number;
}

/** Metadata as JSON; throws on a non-object or a value jsonb cannot keep. */
function metadataJson(metadata: unknown, path: string): string {
  return JSON.stringify(flatMetadata(metadata, path, true));
}

function withoutNul(value: string, path: string): string {
  if (value.includes('\u0000')) throw invalid(path, 'must not contain NUL characters');
  return value;
}

/** A term cut to {@link MAX_TERM_LENGTH} code points. */
function clip(term: string): string {
  return term.length <= MAX_TERM_LENGTH ? term : [...term].slice(0, MAX_TERM_LENGTH).join('');
}

/** Distinct terms with their frequency, in first-occurrence order, and the token count. */
function analyse(
  text: string,
  tokenize: (text: string) => string[],
): { readonly length: number; readonly terms: Map<string, number> } {
  const tokens = tokenize(text);
  const terms = new Map<string, number>();
  for (const token of tokens) {
    const term = clip(token);
    terms.set(term, (terms.get(term) ?? 0) + 1);
  }
  return { length: tokens.length, terms };
}

/** Validates the whole batch, analyses it, and keeps the last record of a repeated id. */
function prepareRecords(
  records: readonly KeywordRecord[],
  tokenize: (text: string) => string[],
): Prepared[] {
  if (!Array.isArray(records)) throw invalid('records', 'must be an array');
  const prepared = new Map<string, Prepared>();
  records.forEach((record: KeywordRecord | undefined, index) => {
    const path = `records.${index}`;
    const id = withoutNul(requireString(record?.id, `${path}.id`), `${path}.id`);
    const text: unknown = record!.text;
    if (typeof text !== 'string') throw invalid(`${path}.text`, `of '${id}' must be a string`);
    const metadata = metadataJson(record!.metadata, `${path}.metadata`);
    prepared.set(id, {
      id,
      // NUL is no word character: replacing it leaves the terms as they are.
      text: text.replaceAll('\u0000', ' '),
      metadata,
      ...analyse(text, tokenize),
    });
  });
  return [...prepared.values()];
}

function checkNamespace(namespace: unknown): string {
  return withoutNul(requireString(namespace, 'namespace'), 'namespace');
}

/** Checks the settings; throws `ConfigError` naming the field (prefixed with `path`). */
export function checkKeywordIndexSettings(
  settings: PostgresKeywordIndexSettings | undefined,
  path = 'keywordIndex',
): void {
  if (settings === undefined) return;
  const fail = (field: string, message: string) =>
    new ConfigError(`${path}.${field} ${message}`, [{ path: `${path}.${field}`, message }]);
  if (typeof settings !== 'object' || settings === null) {
    throw new ConfigError(`${path} must be an object`, [{ path, message: 'must be an object' }]);
  }
  const { k1, b, tokenize } = settings;
  if (k1 !== undefined && !(typeof k1 === 'number' && k1 >= 0 && Number.isFinite(k1))) {
    throw fail('k1', 'must be a finite number ≥ 0');
  }
  if (b !== undefined && !(typeof b === 'number' && b >= 0 && b <= 1)) {
    throw fail('b', 'must be a number in [0, 1]');
  }
  if (tokenize !== undefined && typeof tokenize !== 'function') {
    throw fail('tokenize', 'must be a function');
  }
}

/**
 * Builds the `KeywordIndex` on a pool whose schema is migrated (version 6 or later); `t`
 * qualifies table names.
 */
export function createPostgresKeywordIndex(
  pool: PgPool,
  t: (name: string) => string,
  name = 'postgres',
  settings: PostgresKeywordIndexSettings = {},
): KeywordIndex {
  checkKeywordIndexSettings(settings, 'settings');
  const bm25: Bm25 = { k1: settings.k1 ?? 0.9, b: settings.b ?? 0.4 };
  const tokenize = settings.tokenize ?? tokenizeForIndex;
  const namespaces = t('keyword_namespaces');
  const recordsTable = t('keyword_records');
  const postings = t('keyword_postings');

  /** Locks the namespace's statistics row (creating it when `create`); its number or undefined. */
  async function lockNamespace(
    db: PgQueryable,
    namespace: string,
    create: boolean,
  ): Promise<number | undefined> {
    const { rows } = create
      ? await db.query(
          `INSERT INTO ${namespaces} (namespace) VALUES ($1::text)
           ON CONFLICT (namespace) DO UPDATE SET documents = ${namespaces}.documents
           RETURNING space`,
          [namespace],
        )
      : await db.query(`SELECT space FROM ${namespaces} WHERE namespace = $1::text FOR UPDATE`, [
          namespace,
        ]);
    const space = rows[0]?.['space'];
    return space === undefined ? undefined : Number(space);
  }

  /**
   * Deletes the namespace's records matching `where` (SQL on `keyword_records`, parameters
   * from `values`, which already hold the namespace as `$1` and the space as `$2`) with their
   * postings; returns how many and their total length.
   */
  async function removeWhere(
    db: PgQueryable,
    where: string,
    values: unknown[],
  ): Promise<{ count: number; length: number }> {
    const { rows } = await db.query(
      `WITH removed AS (
         DELETE FROM ${recordsTable} WHERE namespace = $1::text AND (${where}) RETURNING doc, length
       ), gone AS (
         DELETE FROM ${postings} WHERE space = $2::int AND doc IN (SELECT doc FROM removed)
       )
       SELECT count(*)::int AS count, COALESCE(sum(length), 0)::bigint AS length FROM removed`,
      values,
    );
    return { count: Number(rows[0]?.['count'] ?? 0), length: Number(rows[0]?.['length'] ?? 0) };
  }

  async function adjust(
    db: PgQueryable,
    space: number,
    documents: number,
    length: number,
  ): Promise<void> {
    if (documents === 0 && length === 0) return;
    await db.query(
      `UPDATE ${namespaces} SET documents = documents + $2::bigint,
         total_length = total_length + $3::bigint WHERE space = $1::int`,
      [space, documents, length],
    );
  }

  async function insert(
    db: PgQueryable,
    namespace: string,
    space: number,
    batch: readonly Prepared[],
  ): Promise<void> {
    const postingIds: string[] = [];
    const postingTerms: string[] = [];
    const frequencies: number[] = [];
    for (const record of batch) {
      for (const [term, frequency] of record.terms) {
        postingIds.push(record.id);
        postingTerms.push(term);
        frequencies.push(frequency);
      }
    }
    await db.query(
      `WITH inserted AS (
         INSERT INTO ${recordsTable} (namespace, id, text, metadata, length)
         SELECT $1::text, r.id, r.text, r.metadata::jsonb, r.length
         FROM unnest($3::text[], $4::text[], $5::text[], $6::int[]) AS r(id, text, metadata, length)
         RETURNING doc, id, length
       )
       INSERT INTO ${postings} (space, term, doc, frequency, length)
       SELECT $2::int, p.term, i.doc, p.frequency, i.length
       FROM unnest($7::text[], $8::text[], $9::int[]) AS p(id, term, frequency)
       JOIN inserted i ON i.id = p.id`,
      [
        namespace,
        space,
        batch.map((record) => record.id),
        batch.map((record) => record.text),
        batch.map((record) => record.metadata),
        batch.map((record) => record.length),
        postingIds,
        postingTerms,
        frequencies,
      ],
    );
  }

  return {
    name,
    specificationVersion: 'v1',

    async add(namespace: string, records: readonly KeywordRecord[], options?: CallOptions) {
      throwIfAborted(options?.signal);
      checkNamespace(namespace);
      const prepared = prepareRecords(records, tokenize);
      if (prepared.length === 0) return;
      await transaction(pool, async (db) => {
        const space = (await lockNamespace(db, namespace, true))!;
        const removed = await removeWhere(db, 'id = ANY($3::text[])', [
          namespace,
          space,
          prepared.map((record) => record.id),
        ]);
        let length = 0;
        for (let start = 0; start < prepared.length; start += INSERT_BATCH) {
          const batch = prepared.slice(start, start + INSERT_BATCH);
          await insert(db, namespace, space, batch);
          for (const record of batch) length += record.length;
        }
        await adjust(db, space, prepared.length - removed.count, length - removed.length);
        // Aborted meanwhile: throwing inside the transaction rolls the write back.
        throwIfAborted(options?.signal);
      });
    },

    async search(namespace: string, query: string, options: KeywordSearchOptions) {
      throwIfAborted(options?.signal);
      checkNamespace(namespace);
      if (typeof query !== 'string') throw invalid('query', 'must be a string');
      const k = requirePositiveInteger(options?.k, 'k');
      const { filter } = options;
      if (filter !== undefined) validateFilter(filter);
      const { terms } = analyse(query, tokenize);
      if (terms.size === 0) return [];
      const values: unknown[] = [];
      const bind = binder(values);
      const space = `SELECT space, documents::float8 AS n,
          total_length::float8 / documents AS average
        FROM ${namespaces} WHERE namespace = ${bind(namespace)}::text AND documents > 0`;
      const weighted = `SELECT q.term, q.weight, ln(1 + (s.n - f.df + 0.5) / (f.df + 0.5)) AS idf
        FROM stats s
        CROSS JOIN unnest(${bind([...terms.keys()])}::text[], ${bind([...terms.values()])}::float8[])
          AS q(term, weight)
        CROSS JOIN LATERAL (SELECT count(*)::float8 AS df FROM ${postings} p
          WHERE p.space = s.space AND p.term = q.term) f`;
      // The in-memory index's arithmetic: idf · qf · (k1 + 1) · tf / (tf + k1(1 − b) + k1·b·len/avg).
      const k1 = bind(bm25.k1);
      const lengthFactor = bind(bm25.k1 * (1 - bm25.b));
      const k1b = bind(bm25.k1 * bm25.b);
      const scored = `SELECT p.doc, sum((q.idf * q.weight * (${k1}::float8 + 1)) * p.frequency
            / (p.frequency + ${lengthFactor}::float8
              + (${k1b}::float8 / CASE WHEN s.average > 0 THEN s.average ELSE 1 END) * p.length)) AS score,
          sum(q.idf) AS matched
        FROM stats s JOIN terms q ON TRUE
        JOIN ${postings} p ON p.space = s.space AND p.term = q.term
        GROUP BY p.doc`;
      const limit = `${bind(k)}::bigint`;
      // Without a filter, only records scoring at least the k-th best score (ties kept, as
      // the in-memory index does) are joined for their ids and metadata.
      const candidates =
        filter === undefined
          ? `SELECT * FROM scored WHERE score >= COALESCE((SELECT score FROM scored
              ORDER BY score DESC OFFSET ${limit} - 1 LIMIT 1), '-Infinity'::float8)`
          : 'SELECT * FROM scored';
      const sql = `WITH stats AS (${space}), terms AS (${weighted}), scored AS (${scored})
        SELECT r.id, r.metadata, c.score, c.matched, (SELECT sum(idf) FROM terms) AS total
        FROM (${candidates}) c JOIN ${recordsTable} r ON r.doc = c.doc
        WHERE ${filterToSql(filter, bind, 'r.metadata')}
        ORDER BY c.score DESC, r.id COLLATE "C" LIMIT ${limit}`;
      const { rows } = await pool.query(sql, values);
      throwIfAborted(options?.signal);
      return rows.map((row: Row): KeywordMatch => {
        const total = Number(row['total']);
        return {
          id: String(row['id']),
          score: Number(row['score']),
          coverage: total > 0 ? Math.min(1, Number(row['matched']) / total) : 0,
          metadata: (row['metadata'] ?? {}) as Metadata,
        };
      });
    },

    async delete(namespace: string, target: DeleteTarget, options?: CallOptions) {
      throwIfAborted(options?.signal);
      checkNamespace(namespace);
      const values: unknown[] = [namespace, undefined];
      const bind = binder(values);
      let where: string;
      if (typeof target === 'object' && target !== null && 'ids' in target) {
        const { ids } = target;
        if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) {
          throw invalid('target.ids', 'must be an array of strings');
        }
        if (ids.length === 0) return 0;
        where = `id = ANY(${bind(ids)}::text[])`;
      } else if (typeof target === 'object' && target !== null && 'filter' in target) {
        validateFilter(target.filter);
        where = filterToSql(target.filter, bind, 'metadata');
      } else {
        throw invalid('target', 'must be { ids } or { filter }');
      }
      return transaction(pool, async (db) => {
        const space = await lockNamespace(db, namespace, false);
        if (space === undefined) return 0;
        values[1] = space;
        const removed = await removeWhere(db, where, values);
        await adjust(db, space, -removed.count, -removed.length);
        throwIfAborted(options?.signal);
        return removed.count;
      });
    },

    async count(namespace: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      checkNamespace(namespace);
      const { rows } = await pool.query(
        `SELECT documents FROM ${namespaces} WHERE namespace = $1::text`,
        [namespace],
      );
      throwIfAborted(options?.signal);
      return Number(rows[0]?.['documents'] ?? 0);
    },
  };
}
