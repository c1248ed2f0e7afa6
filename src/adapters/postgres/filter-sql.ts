/**
 * Metadata filters compiled to SQL on a jsonb column, shared by the Postgres `VectorStore`
 * (pgvector) and `KeywordIndex`, so both filter exactly like the in-memory `matchesFilter`.
 */
import type { MetadataFilter } from '../../ports/common.js';

/** Appends a parameter and returns its placeholder (`$1`, `$2`, …). */
export type Bind = (value: unknown) => string;

/** A {@link Bind} appending to `values`. */
export function binder(values: unknown[]): Bind {
  return (value) => {
    values.push(value);
    return `$${values.length}`;
  };
}

const RANGES = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as const;

/**
 * SQL conditions on the jsonb `column` (default `metadata`) with the meaning of the
 * in-memory `matchesFilter`: a missing field equals nothing, is never in `$in` nor ordered,
 * and counts as `$ne` / `$nin`; JSON equality distinguishes `1`, `"1"` and `true`; ranges
 * compare numbers with numbers (as `numeric`) and strings with strings (`COLLATE "C"`,
 * code-point order). Field names and operands are bound as parameters; `column` is SQL
 * written by the caller, never user input. Assumes a valid filter.
 */
export function filterToSql(
  filter: MetadataFilter | undefined,
  bind: Bind,
  column = 'metadata',
): string {
  if (filter === undefined) return 'TRUE';
  const clauses: string[] = [];
  for (const field in filter) {
    const condition = filter[field];
    if (condition === undefined) continue;
    const key = bind(field);
    const value = `(${column} -> ${key}::text)`;
    const json = (operand: unknown): string => `${bind(JSON.stringify(operand))}::text::jsonb`;
    if (condition === null || typeof condition !== 'object') {
      clauses.push(`${value} = ${json(condition)}`);
      continue;
    }
    if (condition.$eq !== undefined) clauses.push(`${value} = ${json(condition.$eq)}`);
    if (condition.$ne !== undefined) {
      clauses.push(`${value} IS DISTINCT FROM ${json(condition.$ne)}`);
    }
    if (condition.$in !== undefined) {
      clauses.push(
        `COALESCE(${value} IN (SELECT jsonb_array_elements(${json(condition.$in)})), FALSE)`,
      );
    }
    if (condition.$nin !== undefined) {
      clauses.push(
        `(${value} IS NULL OR ${value} NOT IN (SELECT jsonb_array_elements(${json(condition.$nin)})))`,
      );
    }
    for (const [operator, symbol] of Object.entries(RANGES)) {
      const operand = condition[operator as keyof typeof RANGES];
      if (operand === undefined) continue;
      clauses.push(
        typeof operand === 'number'
          ? `(CASE WHEN jsonb_typeof(${value}) = 'number' THEN ${value}::numeric ${symbol} ${bind(String(operand))}::text::numeric ELSE FALSE END)`
          : `(CASE WHEN jsonb_typeof(${value}) = 'string' THEN (${column} ->> ${key}::text) COLLATE "C" ${symbol} ${bind(operand)}::text COLLATE "C" ELSE FALSE END)`,
      );
    }
  }
  return clauses.length === 0 ? 'TRUE' : clauses.join(' AND ');
}
