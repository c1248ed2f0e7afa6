/**
 * Metadata filters compiled to SQLite SQL over a JSON column, with the in-memory semantics
 * (src/query/filter.ts): a missing field equals nothing, is never in `$in` and
 * never ordered, but counts as `$ne` / `$nin`; JSON types must agree (`json_type`), so `1`
 * never equals `'1'` or `true`. Every condition is wrapped in `IFNULL(…, 0)` so that NOT
 * works on missing fields.
 */
import type { FieldCondition, MetadataFilter, MetadataValue } from '../../ports/common.js';

/** SQL text and its parameters. */
export interface SqlFragment {
  /** A boolean SQL expression. */
  readonly sql: string;
  /** Its `?` parameters, in order. */
  readonly params: unknown[];
}

function equals(column: string, path: string, value: MetadataValue): SqlFragment {
  if (value === null) return { sql: `json_type(${column}, ?) = 'null'`, params: [path] };
  if (typeof value === 'boolean') {
    return { sql: `json_type(${column}, ?) = '${value ? 'true' : 'false'}'`, params: [path] };
  }
  const types = typeof value === 'number' ? `IN ('integer', 'real')` : `= 'text'`;
  return {
    sql: `(json_type(${column}, ?) ${types} AND json_extract(${column}, ?) = ?)`,
    params: [path, path, value],
  };
}

function ordered(
  column: string,
  path: string,
  operator: string,
  operand: number | string,
): SqlFragment {
  const types = typeof operand === 'number' ? `IN ('integer', 'real')` : `= 'text'`;
  return {
    sql: `(json_type(${column}, ?) ${types} AND json_extract(${column}, ?) ${operator} ?)`,
    params: [path, path, operand],
  };
}

function anyOf(parts: readonly SqlFragment[]): SqlFragment {
  if (parts.length === 0) return { sql: '0', params: [] };
  return {
    sql: `(${parts.map((part) => `IFNULL(${part.sql}, 0)`).join(' OR ')})`,
    params: parts.flatMap((part) => part.params),
  };
}

const ORDER_OPERATORS = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as const;

function condition(column: string, path: string, value: FieldCondition): SqlFragment[] {
  if (value === null || typeof value !== 'object') return [anyOf([equals(column, path, value)])];
  const parts: SqlFragment[] = [];
  if (value.$eq !== undefined) parts.push(anyOf([equals(column, path, value.$eq)]));
  if (value.$ne !== undefined) {
    const eq = anyOf([equals(column, path, value.$ne)]);
    parts.push({ sql: `NOT ${eq.sql}`, params: eq.params });
  }
  if (value.$in !== undefined) {
    parts.push(anyOf(value.$in.map((item) => equals(column, path, item))));
  }
  if (value.$nin !== undefined) {
    const any = anyOf(value.$nin.map((item) => equals(column, path, item)));
    parts.push({ sql: `NOT ${any.sql}`, params: any.params });
  }
  for (const [key, operator] of Object.entries(ORDER_OPERATORS)) {
    const operand = value[key as keyof typeof ORDER_OPERATORS];
    if (operand !== undefined) parts.push(anyOf([ordered(column, path, operator, operand)]));
  }
  return parts;
}

/**
 * A validated filter as a boolean SQL expression over the JSON text in `column`, or null
 * when a field name cannot be written as a SQLite JSON path (it contains `"`): the caller
 * then filters in JavaScript.
 */
export function compileFilter(column: string, filter: MetadataFilter): SqlFragment | null {
  const parts: SqlFragment[] = [];
  for (const [field, value] of Object.entries(filter)) {
    if (value === undefined) continue;
    if (field.includes('"')) return null;
    parts.push(...condition(column, `$."${field}"`, value));
  }
  if (parts.length === 0) return { sql: '1', params: [] };
  return {
    sql: parts.map((part) => part.sql).join(' AND '),
    params: parts.flatMap((part) => part.params),
  };
}
