/**
 * Metadata filters as LanceDB SQL. Each record stores, next to its metadata JSON, a list of
 * terms (`terms: List<Utf8>`): one per field value, `["field",value]` as JSON, plus one per
 * number or string field naming its type, `{"number":"field"}`. JSON keeps `1`, `"1"`, `true`
 * and `null` apart, so equality, `$in`, `$ne` and `$nin` become exact list membership tests
 * (`array_has`, `array_has_any`); a missing field has no term, so it equals nothing and
 * counts as not equal, as in the in-memory `matchesFilter`. Ranges cannot be expressed on a
 * list of terms: SQL only keeps records whose field has the operand's type, and the store
 * finishes the comparison in JavaScript.
 */
import type { Metadata, MetadataFilter, MetadataValue } from '../../ports/common.js';

/** The SQL of a filter and whether it decides alone, without a JavaScript pass. */
export interface FilterSql {
  /** Conditions on the `terms` column, joined by `AND`; `undefined` when nothing narrows. */
  readonly where: string | undefined;
  /** True when `where` has exactly the meaning of the filter (no range operator in it). */
  readonly exact: boolean;
}

/** A SQL string literal: single quotes doubled, everything else kept as is. */
export function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** The term stating that `field` holds `value` (JSON, so types stay apart). */
export function valueTerm(field: string, value: MetadataValue): string {
  return JSON.stringify([field, value]);
}

/** The term stating that `field` holds a number or a string (for range operators). */
export function typeTerm(field: string, type: 'number' | 'string'): string {
  return JSON.stringify({ [type]: field });
}

/** Every term of a record's metadata (see the module comment). */
export function metadataTerms(metadata: Metadata): string[] {
  const terms: string[] = [];
  for (const [field, value] of Object.entries(metadata)) {
    terms.push(valueTerm(field, value));
    if (typeof value === 'number' || typeof value === 'string') {
      terms.push(typeTerm(field, typeof value === 'number' ? 'number' : 'string'));
    }
  }
  return terms;
}

function hasTerm(term: string): string {
  return `array_has(terms, ${sqlString(term)})`;
}

function hasAnyTerm(terms: readonly string[]): string {
  return `array_has_any(terms, [${terms.map(sqlString).join(', ')}])`;
}

const RANGE_OPERATORS = ['$gt', '$gte', '$lt', '$lte'] as const;

/**
 * Compiles a valid filter (see `validateFilter`) to conditions on the `terms` column. With
 * `exact` false, the rows it selects are a superset of the matches and the caller applies
 * the filter in JavaScript as well.
 */
export function filterToSql(filter: MetadataFilter | undefined): FilterSql {
  if (filter === undefined) return { where: undefined, exact: true };
  const clauses: string[] = [];
  let exact = true;
  for (const field in filter) {
    const condition = filter[field];
    if (condition === undefined) continue;
    if (condition === null || typeof condition !== 'object') {
      clauses.push(hasTerm(valueTerm(field, condition)));
      continue;
    }
    if (condition.$eq !== undefined) clauses.push(hasTerm(valueTerm(field, condition.$eq)));
    if (condition.$ne !== undefined) {
      clauses.push(`NOT ${hasTerm(valueTerm(field, condition.$ne))}`);
    }
    if (condition.$in !== undefined) {
      clauses.push(
        condition.$in.length === 0
          ? 'FALSE'
          : hasAnyTerm(condition.$in.map((value) => valueTerm(field, value))),
      );
    }
    if (condition.$nin !== undefined && condition.$nin.length > 0) {
      clauses.push(`NOT ${hasAnyTerm(condition.$nin.map((value) => valueTerm(field, value)))}`);
    }
    const types = new Set<'number' | 'string'>();
    for (const operator of RANGE_OPERATORS) {
      const operand = condition[operator];
      if (operand === undefined) continue;
      exact = false;
      types.add(typeof operand === 'number' ? 'number' : 'string');
    }
    for (const type of types) clauses.push(hasTerm(typeTerm(field, type)));
  }
  return { where: clauses.length === 0 ? undefined : clauses.join(' AND '), exact };
}
