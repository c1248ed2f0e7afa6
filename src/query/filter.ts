/**
 * Metadata filters for the in-memory adapters: validation (typed errors naming the field)
 * and matching. Pure functions, shared by the vector store and the keyword index.
 */
import { ValidationError } from '../errors/index.js';
import { isMetadataValue } from './metadata.js';
import type { FieldCondition, Metadata, MetadataFilter, MetadataValue } from '../ports/common.js';

/** The operators a field condition may use. */
export const FILTER_OPERATORS: ReadonlySet<string> = new Set([
  '$eq',
  '$ne',
  '$in',
  '$nin',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
]);

type Operators = Exclude<FieldCondition, MetadataValue>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

function isOrderable(value: unknown): value is number | string {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function fail(path: string, message: string): never {
  throw new ValidationError(`Invalid metadata filter: ${path} ${message}`, [{ path, message }]);
}

function validateOperator(path: string, operator: string, operand: unknown): void {
  if (!FILTER_OPERATORS.has(operator)) {
    fail(
      path,
      `uses unknown operator '${operator}' (expected one of ${[...FILTER_OPERATORS].join(', ')})`,
    );
  }
  const at = `${path}.${operator}`;
  switch (operator) {
    case '$eq':
    case '$ne':
      if (!isMetadataValue(operand)) fail(at, 'must be a string, finite number, boolean or null');
      return;
    case '$in':
    case '$nin':
      if (!Array.isArray(operand)) fail(at, 'must be an array');
      operand.forEach((item: unknown, index) => {
        if (!isMetadataValue(item)) {
          fail(`${at}.${index}`, 'must be a string, finite number, boolean or null');
        }
      });
      return;
    default:
      if (!isOrderable(operand)) fail(at, 'must be a finite number or a string');
  }
}

/**
 * Checks a filter's shape and throws a `ValidationError` naming the first malformed field
 * (unknown operator, `$in` not an array, a non-comparable operand, …).
 */
export function validateFilter(filter: unknown): asserts filter is MetadataFilter {
  if (!isPlainObject(filter)) fail('filter', 'must be an object of field conditions');
  for (const [field, condition] of Object.entries(filter)) {
    const path = `filter.${field}`;
    if (isMetadataValue(condition)) continue;
    if (!isPlainObject(condition)) {
      fail(path, 'must be a value or an object of operators ($eq, $ne, $in, $nin, $gt, …)');
    }
    for (const [operator, operand] of Object.entries(condition)) {
      validateOperator(path, operator, operand);
    }
  }
}

function compare(actual: MetadataValue | undefined, operand: number | string): number | null {
  if (typeof actual === 'number' && typeof operand === 'number') return actual - operand;
  if (typeof actual === 'string' && typeof operand === 'string') {
    return actual < operand ? -1 : actual > operand ? 1 : 0;
  }
  return null;
}

function matchesOperators(actual: MetadataValue | undefined, condition: Operators): boolean {
  if (condition.$eq !== undefined && actual !== condition.$eq) return false;
  if (condition.$ne !== undefined && actual === condition.$ne) return false;
  if (condition.$in !== undefined && (actual === undefined || !condition.$in.includes(actual))) {
    return false;
  }
  if (condition.$nin !== undefined && actual !== undefined && condition.$nin.includes(actual)) {
    return false;
  }
  const bounds: Array<[number | string | undefined, (difference: number) => boolean]> = [
    [condition.$gt, (difference) => difference > 0],
    [condition.$gte, (difference) => difference >= 0],
    [condition.$lt, (difference) => difference < 0],
    [condition.$lte, (difference) => difference <= 0],
  ];
  for (const [operand, holds] of bounds) {
    if (operand === undefined) continue;
    const difference = compare(actual, operand);
    if (difference === null || !holds(difference)) return false;
  }
  return true;
}

/** True when one field value satisfies its condition (a bare value means equality). */
export function matchesCondition(
  actual: MetadataValue | undefined,
  condition: FieldCondition,
): boolean {
  if (condition === null || typeof condition !== 'object') return actual === condition;
  return matchesOperators(actual, condition);
}

/**
 * True when the metadata satisfies every field condition of the filter. A missing field
 * equals nothing, is never in `$in` and never ordered, but counts as `$ne` / `$nin`. Range
 * operators compare numbers with numbers and strings with strings only. Assumes a valid
 * filter (see `validateFilter`).
 */
export function matchesFilter(metadata: Metadata, filter: MetadataFilter | undefined): boolean {
  if (filter === undefined) return true;
  for (const field in filter) {
    const condition = filter[field];
    if (condition === undefined) continue;
    const actual = Object.prototype.hasOwnProperty.call(metadata, field)
      ? metadata[field]
      : undefined;
    if (!matchesCondition(actual, condition)) return false;
  }
  return true;
}

/** A filter compiled to a predicate: `$in` / `$nin` lists become sets. */
export type FilterPredicate = (metadata: Metadata) => boolean;

/**
 * Compiles a valid filter once per query into a predicate with the same meaning as
 * `matchesFilter` (`$in`/`$nin` checked against sets, so long lists stay cheap).
 */
export function compileFilter(filter: MetadataFilter | undefined): FilterPredicate {
  if (filter === undefined) return () => true;
  const checks: FilterPredicate[] = [];
  for (const field in filter) {
    const condition = filter[field];
    if (condition === undefined) continue;
    const valueOf = (metadata: Metadata): MetadataValue | undefined =>
      Object.prototype.hasOwnProperty.call(metadata, field) ? metadata[field] : undefined;
    if (condition === null || typeof condition !== 'object') {
      checks.push((metadata) => valueOf(metadata) === condition);
      continue;
    }
    const { $in, $nin, ...rest } = condition;
    if ($in !== undefined) {
      const allowed = new Set<MetadataValue>($in);
      checks.push((metadata) => {
        const actual = valueOf(metadata);
        return actual !== undefined && allowed.has(actual);
      });
    }
    if ($nin !== undefined) {
      const refused = new Set<MetadataValue>($nin);
      checks.push((metadata) => {
        const actual = valueOf(metadata);
        return actual === undefined || !refused.has(actual);
      });
    }
    if (Object.keys(rest).length > 0) {
      checks.push((metadata) => matchesOperators(valueOf(metadata), rest));
    }
  }
  return (metadata) => {
    for (const check of checks) if (!check(metadata)) return false;
    return true;
  };
}
