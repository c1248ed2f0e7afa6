/**
 * Exact cosine-similarity vector store in memory. Each namespace keeps its vectors
 * L2-normalised in one contiguous, growable `Float32Array`, so a query is a tight loop of
 * dot products; deletes swap the last row into the freed slot.
 */
import { ValidationError, throwIfAborted } from '../../errors/index.js';
import type { CallOptions, DeleteTarget, Metadata } from '../../ports/common.js';
import type {
  VectorMatch,
  VectorQueryOptions,
  VectorRecord,
  VectorStore,
} from '../../ports/vector-store.js';
import { matchesFilter, validateFilter } from './filter.js';

/** Settings of the in-memory vector store. */
export interface MemoryVectorStoreSettings {
  /** Rows allocated when a namespace receives its first vector (default 1024); grows ×2. */
  readonly initialCapacity?: number;
}

/** One namespace: rows `0..size-1` of `data` are live. */
/**
 * One namespace's vectors, stored dimension-major: component `d` of the vector in `slot` is
 * `data[d * capacity + slot]`. A query then adds `q[d] · column d` for each non-zero `q[d]`
 * only — one tight loop per dimension, and sparse queries (hashed features) skip most of them.
 */
interface Space {
  dimensions: number;
  capacity: number;
  size: number;
  data: Float32Array;
  /** Scratch for query scores, reused across queries. */
  scores: Float64Array;
  ids: string[];
  metadata: Metadata[];
  slots: Map<string, number>;
}

/** A validated, normalised record ready to store. */
interface Prepared {
  readonly id: string;
  readonly vector: Float32Array;
  readonly metadata: Metadata;
}

function checkNamespace(namespace: unknown): asserts namespace is string {
  if (typeof namespace !== 'string' || namespace.length === 0) {
    throw new ValidationError('namespace must be a non-empty string', [
      { path: 'namespace', message: 'must be a non-empty string' },
    ]);
  }
}

function invalid(path: string, message: string): ValidationError {
  return new ValidationError(`${path} ${message}`, [{ path, message }]);
}

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

function checkK(k: unknown): asserts k is number {
  if (typeof k !== 'number' || !Number.isInteger(k) || k < 1) {
    throw invalid('k', `must be a positive integer (got ${String(k)})`);
  }
}

function isVectorLike(value: unknown): value is Float32Array | readonly number[] {
  return value instanceof Float32Array || Array.isArray(value);
}

function prepare(records: readonly VectorRecord[], dimensions: number | null): Prepared[] {
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
      metadata: Object.freeze({ ...metadata }),
    });
  });
  return prepared;
}

function createSpace(dimensions: number, capacity: number): Space {
  return {
    dimensions,
    capacity,
    size: 0,
    data: new Float32Array(dimensions * capacity),
    scores: new Float64Array(capacity),
    ids: [],
    metadata: [],
    slots: new Map(),
  };
}

function ensureCapacity(space: Space, rows: number): void {
  if (rows <= space.capacity) return;
  let capacity = Math.max(space.capacity, 1);
  while (capacity < rows) capacity *= 2;
  const grown = new Float32Array(capacity * space.dimensions);
  for (let d = 0; d < space.dimensions; d++) {
    const from = d * space.capacity;
    grown.set(space.data.subarray(from, from + space.size), d * capacity);
  }
  space.data = grown;
  space.capacity = capacity;
  space.scores = new Float64Array(capacity);
}

function write(space: Space, record: Prepared): void {
  let slot = space.slots.get(record.id);
  if (slot === undefined) {
    ensureCapacity(space, space.size + 1);
    slot = space.size++;
    space.slots.set(record.id, slot);
  }
  const { data, capacity, dimensions } = space;
  for (let d = 0; d < dimensions; d++) data[d * capacity + slot] = record.vector[d]!;
  space.ids[slot] = record.id;
  space.metadata[slot] = record.metadata;
}

function remove(space: Space, id: string): boolean {
  const slot = space.slots.get(id);
  if (slot === undefined) return false;
  const last = space.size - 1;
  if (slot !== last) {
    const { data, capacity, dimensions } = space;
    for (let d = 0; d < dimensions; d++) data[d * capacity + slot] = data[d * capacity + last]!;
    const movedId = space.ids[last]!;
    space.ids[slot] = movedId;
    space.metadata[slot] = space.metadata[last]!;
    space.slots.set(movedId, slot);
  }
  space.ids.pop();
  space.metadata.pop();
  space.slots.delete(id);
  space.size = last;
  return true;
}

/** Better-first order of two hits: higher score, then smaller id (deterministic ties). */
function better(scoreA: number, idA: string, scoreB: number, idB: string): boolean {
  return scoreA > scoreB || (scoreA === scoreB && idA < idB);
}

/**
 * A bounded min-heap of slots keyed by score: keeps the `k` best seen so far, worst at the
 * root, so each candidate costs one comparison unless it enters the top k.
 */
class TopK {
  private readonly slots: number[] = [];
  private readonly scores: number[] = [];

  constructor(
    private readonly k: number,
    private readonly ids: readonly string[],
  ) {}

  /** The score a candidate must beat to enter (−∞ until the heap is full). */
  get floor(): number {
    return this.slots.length < this.k ? -Infinity : this.scores[0]!;
  }

  push(slot: number, score: number): void {
    if (this.slots.length < this.k) {
      this.slots.push(slot);
      this.scores.push(score);
      this.up(this.slots.length - 1);
    } else if (better(score, this.ids[slot]!, this.scores[0]!, this.ids[this.slots[0]!]!)) {
      this.slots[0] = slot;
      this.scores[0] = score;
      this.down(0);
    }
  }

  /** Slots and scores, best first. */
  sorted(): Array<{ slot: number; score: number }> {
    return this.slots
      .map((slot, index) => ({ slot, score: this.scores[index]! }))
      .sort((a, b) => (better(a.score, this.ids[a.slot]!, b.score, this.ids[b.slot]!) ? -1 : 1));
  }

  private worse(i: number, j: number): boolean {
    return better(
      this.scores[j]!,
      this.ids[this.slots[j]!]!,
      this.scores[i]!,
      this.ids[this.slots[i]!]!,
    );
  }

  private swap(i: number, j: number): void {
    [this.slots[i], this.slots[j]] = [this.slots[j]!, this.slots[i]!];
    [this.scores[i], this.scores[j]] = [this.scores[j]!, this.scores[i]!];
  }

  private up(index: number): void {
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.worse(index, parent)) return;
      this.swap(index, parent);
      index = parent;
    }
  }

  private down(index: number): void {
    const length = this.slots.length;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let worst = index;
      if (left < length && this.worse(left, worst)) worst = left;
      if (right < length && this.worse(right, worst)) worst = right;
      if (worst === index) return;
      this.swap(index, worst);
      index = worst;
    }
  }
}

/**
 * An exact cosine vector store held in memory: mandatory namespaces, metadata filters,
 * typed errors for bad vectors. Good up to a few hundred thousand vectors per namespace.
 */
export function createMemoryVectorStore(settings: MemoryVectorStoreSettings = {}): VectorStore {
  const initialCapacity = Math.max(1, Math.floor(settings.initialCapacity ?? 1024));
  const spaces = new Map<string, Space>();

  return {
    name: 'memory',
    specificationVersion: 'v1',

    async upsert(namespace: string, records: readonly VectorRecord[], options?: CallOptions) {
      throwIfAborted(options?.signal);
      checkNamespace(namespace);
      if (!Array.isArray(records)) throw invalid('records', 'must be an array');
      const existing = spaces.get(namespace);
      const prepared = prepare(records, existing && existing.size > 0 ? existing.dimensions : null);
      const first = prepared[0];
      if (first === undefined) return;
      let space = existing;
      if (space === undefined || space.size === 0) {
        space = createSpace(first.vector.length, Math.max(initialCapacity, prepared.length));
        spaces.set(namespace, space);
      }
      for (const record of prepared) write(space, record);
    },

    async query(
      namespace: string,
      vector: Float32Array | readonly number[],
      options: VectorQueryOptions,
    ) {
      throwIfAborted(options?.signal);
      checkNamespace(namespace);
      checkK(options?.k);
      if (options.filter !== undefined) validateFilter(options.filter);
      if (!isVectorLike(vector) || vector.length === 0) {
        throw invalid('vector', 'must be a non-empty number array');
      }
      const space = spaces.get(namespace);
      if (space !== undefined && space.size > 0 && vector.length !== space.dimensions) {
        throw invalid(
          'vector',
          `has ${vector.length} dimensions; namespace '${namespace}' has ${space.dimensions}`,
        );
      }
      const unit = normalizeVector(vector, 'vector');
      if (space === undefined || space.size === 0) return [];
      return search(space, unit, options);
    },

    async delete(namespace: string, target: DeleteTarget, options?: CallOptions) {
      throwIfAborted(options?.signal);
      checkNamespace(namespace);
      const ids = resolveTarget(spaces.get(namespace), target);
      const space = spaces.get(namespace);
      if (space === undefined) return 0;
      let removed = 0;
      for (const id of ids) if (remove(space, id)) removed++;
      return removed;
    },

    async count(namespace: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      checkNamespace(namespace);
      return spaces.get(namespace)?.size ?? 0;
    },
  };
}

function resolveTarget(space: Space | undefined, target: DeleteTarget): readonly string[] {
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
    return space.ids.filter((_, slot) => matchesFilter(space.metadata[slot]!, target.filter));
  }
  throw invalid('target', 'must be { ids } or { filter }');
}

/**
 * Adds `weight · column` to `scores` for the query's non-zero components, four columns per
 * pass (fewer passes over `scores`: about 2× faster than one at a time, measured).
 */
function accumulate(space: Space, unit: Float32Array): Float64Array {
  const { data, dimensions, size, capacity, scores } = space;
  scores.fill(0, 0, size);
  const nonZero: number[] = [];
  for (let d = 0; d < dimensions; d++) if (unit[d] !== 0) nonZero.push(d);
  let k = 0;
  for (; k + 3 < nonZero.length; k += 4) {
    const [d1, d2, d3, d4] = [nonZero[k]!, nonZero[k + 1]!, nonZero[k + 2]!, nonZero[k + 3]!];
    const [w1, w2, w3, w4] = [unit[d1]!, unit[d2]!, unit[d3]!, unit[d4]!];
    const [b1, b2, b3, b4] = [d1 * capacity, d2 * capacity, d3 * capacity, d4 * capacity];
    for (let slot = 0; slot < size; slot++) {
      scores[slot]! +=
        w1 * data[b1 + slot]! +
        w2 * data[b2 + slot]! +
        w3 * data[b3 + slot]! +
        w4 * data[b4 + slot]!;
    }
  }
  for (; k < nonZero.length; k++) {
    const d = nonZero[k]!;
    const weight = unit[d]!;
    const base = d * capacity;
    for (let slot = 0; slot < size; slot++) scores[slot]! += weight * data[base + slot]!;
  }
  return scores;
}

function search(space: Space, unit: Float32Array, options: VectorQueryOptions): VectorMatch[] {
  const { size } = space;
  const scores = accumulate(space, unit);
  const filter = options.filter;
  const heap = new TopK(Math.min(options.k, size), space.ids);
  for (let slot = 0; slot < size; slot++) {
    const score = scores[slot]!;
    if (score < heap.floor) continue;
    if (filter !== undefined && !matchesFilter(space.metadata[slot]!, filter)) continue;
    heap.push(slot, score);
  }
  return heap.sorted().map(({ slot, score }) => ({
    id: space.ids[slot]!,
    score: Math.max(-1, Math.min(1, score)),
    metadata: space.metadata[slot]!,
  }));
}
