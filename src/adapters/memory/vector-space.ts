/**
 * The storage of one vector-store namespace (a "space"): its vectors held dimension-major in
 * one growable `Float32Array`, ids, metadata (and the records of each `documentId`, `sessionId`
 * and `userId`) and graph
 * labels, and the row operations on it — create, grow, write (insert or replace), swap-remove,
 * read one row back, and find the rows a filter lets through.
 */
import type { Metadata, MetadataFilter } from '../../ports/common.js';
import {
  filterValues,
  indexedRecordIds,
  indexRecord,
  unindexRecord,
  type RecordIndex,
} from './document-ids.js';
import type { AnnIndex } from './hnsw-index.js';
import { createScanMemory, type ScanMemory } from './vector-scan-kernel.js';

/** A namespace's ANN index as a snapshot saved it, until the store loads it. */
export interface SavedGraph {
  /** The `kind` of the ANN index factory that saved it. */
  readonly kind: string;
  /** Labels below it had been visited: the live ones among them are in the saved index. */
  readonly cursor: number;
  /** What the index's `save()` returned. */
  readonly bytes: Uint8Array;
}

/** A namespace's ANN graph and how far it has caught up. */
export interface Ann {
  index: AnnIndex | null;
  /** Labels below the cursor have been visited: added when live at the time. */
  cursor: number;
  /** The graph has caught up once; from then on queries use it. */
  ready: boolean;
  building: Promise<void> | null;
  error: unknown;
  disposed: boolean;
  /** A snapshot's saved index, loaded by the next build instead of starting empty. */
  saved: SavedGraph | null;
  /** Labels below the cursor removed while the saved index was loading, removed from it once loaded. */
  removed: number[];
}

/**
 * One namespace's vectors, stored dimension-major: component `d` of the vector in `slot` is
 * `data[d * capacity + slot]`. A query then adds `q[d] · column d` for each non-zero `q[d]`
 * only — one tight loop per dimension, and sparse queries (hashed features) skip most of them.
 */
export interface Space {
  dimensions: number;
  capacity: number;
  size: number;
  data: Float32Array;
  /** Scratch for query scores, reused across queries (at least `capacity` long). */
  scores: Float64Array;
  /** The WebAssembly SIMD kernel whose memory holds `data` and `scores`; null: plain arrays, the JS scan. */
  kernel: ScanMemory | null;
  /** Whether the space moves into the kernel's memory once it holds {@link KERNEL_MIN_ROWS} rows. */
  kernelAllowed: boolean;
  ids: string[];
  metadata: Metadata[];
  slots: Map<string, number>;
  /** Ids of the records with each value of each of {@link INDEXED_KEYS}. */
  indexes: Map<string, RecordIndex>;
  /** Graph label of each slot; a new one on every write, so the graph never sees stale vectors. */
  labels: number[];
  /** Live label → slot. */
  labelSlots: Map<number, number>;
  nextLabel: number;
  ann: Ann | null;
  /** The index a snapshot saved for this namespace: restoring schedules the namespace at once, which hands it to the graph (or drops it when the namespace wants none). */
  saved: SavedGraph | null;
}

/** A validated, normalised record ready to store. */
export interface Prepared {
  readonly id: string;
  readonly vector: Float32Array;
  readonly metadata: Metadata;
}

/**
 * Metadata keys whose values a space indexes, in the order a filter's are looked up: a chunk's
 * `documentId` (ingestion's reads and deletes), and a recall record's `sessionId` and `userId`
 * (each turn's recall asks for one session's or one user's messages, which would otherwise
 * test every message stored for every user). A record without the key costs nothing.
 */
export const INDEXED_KEYS: readonly string[] = ['documentId', 'sessionId', 'userId'];

/**
 * Rows from which a space's columns live in the scan kernel's memory. Below, the JS loop is
 * quick enough, and many small namespaces do not each reserve a WebAssembly memory (V8
 * reserves address space per memory).
 */
export const KERNEL_MIN_ROWS = 256;

/**
 * Columns and scores for `dimensions × capacity`: in the scan kernel's memory when `kernel`,
 * the capacity reaches {@link KERNEL_MIN_ROWS} and WebAssembly SIMD is available, else plain
 * typed arrays.
 */
function allocate(
  dimensions: number,
  capacity: number,
  kernel: boolean,
): Pick<Space, 'data' | 'scores' | 'kernel'> {
  const memory =
    kernel && capacity >= KERNEL_MIN_ROWS ? createScanMemory(dimensions, capacity) : null;
  if (memory) return { data: memory.data, scores: memory.scores, kernel: memory };
  return {
    data: new Float32Array(dimensions * capacity),
    scores: new Float64Array(capacity),
    kernel: null,
  };
}

/**
 * An empty namespace for vectors of `dimensions` components, with room for `capacity` rows.
 * `kernel: false` keeps plain arrays and the JS scan (the fallback, and tests comparing both).
 */
export function createSpace(dimensions: number, capacity: number, kernel = true): Space {
  return {
    dimensions,
    capacity,
    size: 0,
    ...allocate(dimensions, capacity, kernel),
    kernelAllowed: kernel,
    ids: [],
    metadata: [],
    slots: new Map(),
    indexes: new Map(INDEXED_KEYS.map((key) => [key, new Map()])),
    labels: [],
    labelSlots: new Map(),
    nextLabel: 0,
    ann: null,
    saved: null,
  };
}

/** Records `id` under its values of the indexed keys (a new row, or a snapshot's). */
export function indexRow(space: Space, id: string, metadata: Metadata): void {
  for (const [key, index] of space.indexes) indexRecord(index, key, id, metadata);
}

function unindexRow(space: Space, id: string, metadata: Metadata): void {
  for (const [key, index] of space.indexes) unindexRecord(index, key, id, metadata);
}

/** Marks a label deleted in the graph when the graph has seen it. */
function forgetLabel(space: Space, label: number): void {
  space.labelSlots.delete(label);
  const ann = space.ann;
  if (!ann || label >= ann.cursor) return;
  if (ann.index) ann.index.remove(label);
  else ann.removed.push(label);
}

/** Grows the columns (×2 steps) until they hold `rows` rows. */
function ensureCapacity(space: Space, rows: number): void {
  if (rows <= space.capacity) return;
  let capacity = Math.max(space.capacity, 1);
  while (capacity < rows) capacity *= 2;
  const grown = allocate(space.dimensions, capacity, space.kernelAllowed);
  for (let d = 0; d < space.dimensions; d++) {
    const from = d * space.capacity;
    grown.data.set(space.data.subarray(from, from + space.size), d * capacity);
  }
  Object.assign(space, grown);
  space.capacity = capacity;
}

/** Inserts a record, or replaces the one with its id (under a new graph label). */
export function write(space: Space, record: Prepared): void {
  let slot = space.slots.get(record.id);
  if (slot === undefined) {
    ensureCapacity(space, space.size + 1);
    slot = space.size++;
    space.slots.set(record.id, slot);
  } else {
    forgetLabel(space, space.labels[slot]!);
    unindexRow(space, record.id, space.metadata[slot]!);
  }
  indexRow(space, record.id, record.metadata);
  const label = space.nextLabel++;
  space.labels[slot] = label;
  space.labelSlots.set(label, slot);
  const { data, capacity, dimensions } = space;
  for (let d = 0; d < dimensions; d++) data[d * capacity + slot] = record.vector[d]!;
  space.ids[slot] = record.id;
  space.metadata[slot] = record.metadata;
}

/** Removes a record, moving the last row into its slot; false when the id is absent. */
export function remove(space: Space, id: string): boolean {
  const slot = space.slots.get(id);
  if (slot === undefined) return false;
  const last = space.size - 1;
  forgetLabel(space, space.labels[slot]!);
  unindexRow(space, id, space.metadata[slot]!);
  if (slot !== last) {
    const { data, capacity, dimensions } = space;
    for (let d = 0; d < dimensions; d++) data[d * capacity + slot] = data[d * capacity + last]!;
    const movedId = space.ids[last]!;
    space.ids[slot] = movedId;
    space.metadata[slot] = space.metadata[last]!;
    space.slots.set(movedId, slot);
    const movedLabel = space.labels[last]!;
    space.labels[slot] = movedLabel;
    space.labelSlots.set(movedLabel, slot);
  }
  space.ids.pop();
  space.metadata.pop();
  space.labels.pop();
  space.slots.delete(id);
  space.size = last;
  return true;
}

/** Copies the vector in `slot` into `into` (a gather across the dimension-major columns). */
export function readRow(space: Space, slot: number, into: Float32Array): Float32Array {
  const { data, capacity, dimensions } = space;
  for (let d = 0; d < dimensions; d++) into[d] = data[d * capacity + slot]!;
  return into;
}

/**
 * The slots of the records a filter lets through, in ascending order: with a filter on one of
 * {@link INDEXED_KEYS} (the first it names), only the records with its values are tested
 * (`matches` is the compiled filter).
 */
export function matchingSlots(
  space: Space,
  filter: MetadataFilter,
  matches: (metadata: Metadata) => boolean,
): number[] {
  const slots: number[] = [];
  for (const [key, index] of space.indexes) {
    const values = filterValues(filter, key);
    if (values === undefined) continue;
    for (const value of new Set(values)) {
      for (const id of indexedRecordIds(index, value)) {
        const slot = space.slots.get(id)!;
        if (matches(space.metadata[slot]!)) slots.push(slot);
      }
    }
    return slots.sort((a, b) => a - b);
  }
  for (let slot = 0; slot < space.size; slot++)
    if (matches(space.metadata[slot]!)) slots.push(slot);
  return slots;
}
