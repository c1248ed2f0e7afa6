/**
 * Input validation of the memory vector store: vectors are checked and L2-normalised, records
 * checked against the namespace's dimensions, and a delete target resolved to the ids it
 * names (a metadata filter is matched against the namespace's records).
 */
import type { DeleteTarget } from '../../ports/common.js';
import type { VectorRecord } from '../../ports/vector-store.js';
import { compileFilter, validateFilter } from '../../query/filter.js';
import { isFloat32Array } from '../../util/realm.js';
import { invalid } from '../shared/validate.js';
import { frozenMetadata } from './frozen-metadata.js';
import { matchingSlots, type Prepared, type Space } from './vector-space.js';

/**
 * Copies a vector into a new unit-length `Float32Array`; throws on non-finite components
 * or a zero vector (cosine similarity is undefined for it).
 */
export function normalizeVector(
  vector: Float32Array | readonly number[],
  path: string,
): Float32Array {
  let sum = 0;
  for (let index = 0; index < vector.length; index++) {
    const value = vector[index]!;
    if (!Number.isFinite(value)) {
      throw invalid(`${path}.${index}`, `must be a finite number (got ${String(value)})`);
    }
    sum += value * value;
  }
  if (sum === 0) throw invalid(path, 'is a zero vector; cosine similarity is undefined');
  const norm = Math.sqrt(sum);
  const unit = new Float32Array(vector.length);
  for (let index = 0; index < vector.length; index++) unit[index] = vector[index]! / norm;
  return unit;
}

/** A `Float32Array` (from any realm) or an array, before its components are checked. */
export function isVectorLike(value: unknown): value is Float32Array | readonly number[] {
  return isFloat32Array(value) || Array.isArray(value);
}

/** Checks records (ids, vectors of one length, metadata objects) and normalises their vectors. */
export function prepare(records: readonly VectorRecord[], dimensions: number | null): Prepared[] {
  const prepared: Prepared[] = [];
  let expected = dimensions;
  records.forEach((record, index) => {
    const path = `records.${index}`;
    if (typeof record?.id !== 'string' || record.id.length === 0) {
      throw invalid(`${path}.id`, 'must be a non-empty string');
    }
    if (!isVectorLike(record.vector) || record.vector.length === 0) {
      throw invalid(`${path}.vector`, `of '${record.id}' must be a non-empty number array`);
    }
    if (expected !== null && record.vector.length !== expected) {
      throw invalid(
        `${path}.vector`,
        `of '${record.id}' has ${record.vector.length} dimensions; the namespace has ${expected}`,
      );
    }
    expected = record.vector.length;
    const metadata = record.metadata ?? {};
    if (typeof metadata !== 'object' || Array.isArray(metadata)) {
      throw invalid(`${path}.metadata`, `of '${record.id}' must be an object`);
    }
    prepared.push({
      id: record.id,
      vector: normalizeVector(record.vector, `${path}.vector`),
      metadata: frozenMetadata(metadata),
    });
  });
  return prepared;
}

/** The ids a delete target names: its `ids`, or those of the records its `filter` matches. */
export function resolveTarget(space: Space | undefined, target: DeleteTarget): readonly string[] {
  if (typeof target !== 'object' || target === null) {
    throw invalid('target', 'must be { ids } or { filter }');
  }
  if ('ids' in target) {
    if (!Array.isArray(target.ids)) throw invalid('target.ids', 'must be an array of strings');
    return target.ids;
  }
  if ('filter' in target) {
    validateFilter(target.filter);
    if (space === undefined) return [];
    // Compiled: `$in` lists become sets (ingestion deletes by 256 document ids per group).
    return matchingSlots(space, target.filter, compileFilter(target.filter)).map(
      (slot) => space.ids[slot]!,
    );
  }
  throw invalid('target', 'must be { ids } or { filter }');
}
