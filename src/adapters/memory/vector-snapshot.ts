/**
 * Snapshots of the memory vector store: every namespace's ids and metadata as JSON and its
 * dimension-major vector columns as the binary section, and the checked rebuild of the
 * namespaces from those bytes. When a namespace's ANN index can save itself (`cortexis/usearch`;
 * hnswlib-wasm cannot), its bytes follow all the vector columns (each padded to 4 bytes), and
 * the JSON keeps the graph labels of the records and the index's kind and cursor, so a restored
 * store loads the index instead of rebuilding it. Snapshots with a saved index are read by
 * cortexis versions from this one on; others are read as before.
 */
import type { Metadata } from '../../ports/common.js';
import { decodeSnapshot, encodeSnapshot, snapshotError } from './snapshot.js';
import { createSpace, indexRow, type SavedGraph, type Space } from './vector-space.js';
import { frozenMetadata } from './frozen-metadata.js';

/** Rebuilds the namespaces of a vector snapshot, each with room for at least `initialCapacity` rows. */
export function spacesFromSnapshot(bytes: Uint8Array, initialCapacity: number): Map<string, Space> {
  const { json, binary } = decodeSnapshot(bytes, 'vectors');
  const namespaces = parseVectorSnapshot(json);
  const total = namespaces.reduce((sum, entry) => sum + entry.ids.length * entry.dimensions, 0);
  const graphBytes = namespaces.reduce((sum, entry) => sum + padded(entry.graph?.byteLength), 0);
  if (binary.byteLength !== total * 4 + graphBytes) {
    throw snapshotError(
      `has ${binary.byteLength} bytes of vectors and indexes; expected ${total * 4 + graphBytes}`,
    );
  }
  const values = new Float32Array(binary.buffer, binary.byteOffset, total);
  for (let index = 0; index < values.length; index++) {
    if (!Number.isFinite(values[index]!)) throw snapshotError('holds a non-finite vector value');
  }
  const restored = new Map<string, Space>();
  let offset = 0;
  let graphOffset = total * 4;
  for (const entry of namespaces) {
    const size = entry.ids.length;
    const space = createSpace(entry.dimensions, Math.max(initialCapacity, size));
    for (let d = 0; d < entry.dimensions; d++) {
      space.data.set(values.subarray(offset, offset + size), d * space.capacity);
      offset += size;
    }
    space.size = size;
    entry.ids.forEach((id, slot) => {
      const label = entry.labels?.[slot] ?? slot;
      space.ids.push(id);
      const metadata = frozenMetadata(entry.metadata[slot]!);
      space.metadata.push(metadata);
      space.slots.set(id, slot);
      indexRow(space, id, metadata);
      space.labels.push(label);
      space.labelSlots.set(label, slot);
    });
    space.nextLabel = entry.nextLabel ?? size;
    if (entry.graph) {
      const { kind, cursor, byteLength } = entry.graph;
      const bytes = binary.subarray(graphOffset, graphOffset + byteLength);
      space.saved = { kind, cursor, bytes };
      graphOffset += padded(byteLength);
    }
    restored.set(entry.name, space);
  }
  return restored;
}

/** Bytes rounded up to a multiple of 4 (0 for none). */
function padded(byteLength: number | undefined): number {
  return Math.ceil((byteLength ?? 0) / 4) * 4;
}

/** A namespace's index as bytes with its kind and cursor, when it can save itself. */
function savedGraph(space: Space, kind: string): SavedGraph | null {
  const ann = space.ann;
  if (!ann || ann.disposed || ann.error !== undefined) return null;
  if (ann.index?.save) return { kind, cursor: ann.cursor, bytes: ann.index.save() };
  // Restored but not loaded yet: the snapshot's bytes are still valid.
  if (ann.index === null && ann.saved?.kind === kind) return ann.saved;
  return null;
}

/**
 * Every non-empty namespace's vectors and metadata as snapshot bytes, with each ANN index that
 * can save itself (`kind`: the store's index factory kind).
 */
export function snapshotSpaces(spaces: ReadonlyMap<string, Space>, kind: string): Uint8Array {
  const entries: VectorSnapshotNamespace[] = [];
  const columns: Float32Array[] = [];
  const graphs: Uint8Array[] = [];
  for (const [name, space] of spaces) {
    if (space.size === 0) continue;
    const entry: VectorSnapshotNamespace = {
      name,
      dimensions: space.dimensions,
      ids: space.ids.slice(0, space.size),
      metadata: space.metadata.slice(0, space.size),
    };
    const graph = savedGraph(space, kind);
    if (graph) {
      const { cursor, bytes } = graph;
      entries.push({
        ...entry,
        labels: space.labels.slice(0, space.size),
        nextLabel: space.nextLabel,
        graph: { kind: graph.kind, cursor, byteLength: bytes.byteLength },
      });
      graphs.push(bytes, new Uint8Array(padded(bytes.byteLength) - bytes.byteLength));
    } else {
      entries.push(entry);
    }
    for (let d = 0; d < space.dimensions; d++) {
      const from = d * space.capacity;
      columns.push(space.data.subarray(from, from + space.size));
    }
  }
  return encodeSnapshot('vectors', { namespaces: entries }, [...columns, ...graphs]);
}

/** One namespace in a vector snapshot's JSON section. */
interface VectorSnapshotNamespace {
  readonly name: string;
  readonly dimensions: number;
  readonly ids: readonly string[];
  readonly metadata: readonly Metadata[];
  /** Graph label of each record, when an index is saved (else the slot). */
  readonly labels?: readonly number[];
  /** The next graph label, when an index is saved (else the record count). */
  readonly nextLabel?: number;
  /** The saved index: its factory kind, cursor and byte length in the binary section. */
  readonly graph?: { readonly kind: string; readonly cursor: number; readonly byteLength: number };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks the JSON section of a vector snapshot. */
function parseVectorSnapshot(json: unknown): VectorSnapshotNamespace[] {
  if (!isRecord(json) || !Array.isArray(json['namespaces'])) {
    throw snapshotError('has no namespaces list');
  }
  const seen = new Set<string>();
  return json['namespaces'].map((entry: unknown, index) => {
    const at = `namespace ${index}`;
    if (!isRecord(entry)) throw snapshotError(`${at} is not an object`);
    const { name, dimensions, ids, metadata } = entry;
    if (typeof name !== 'string' || name.length === 0 || seen.has(name)) {
      throw snapshotError(`${at} has a missing or duplicate name`);
    }
    seen.add(name);
    if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1) {
      throw snapshotError(`${at} has invalid dimensions`);
    }
    if (!Array.isArray(ids) || !Array.isArray(metadata) || ids.length !== metadata.length) {
      throw snapshotError(`${at} has ids and metadata of different lengths`);
    }
    const unique = new Set<string>();
    for (const id of ids) {
      if (typeof id !== 'string' || id.length === 0 || unique.has(id)) {
        throw snapshotError(`${at} has an empty or duplicate id`);
      }
      unique.add(id);
    }
    if (!metadata.every(isRecord)) throw snapshotError(`${at} has non-object metadata`);
    const parsed = { name, dimensions, ids: ids as string[], metadata: metadata as Metadata[] };
    if (entry['graph'] === undefined) return parsed;
    return { ...parsed, ...parseSavedGraph(entry, ids.length, at) };
  });
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0;

/** Checks a namespace's saved index entry: labels, next label, kind, cursor and byte length. */
function parseSavedGraph(
  entry: Record<string, unknown>,
  size: number,
  at: string,
): Pick<VectorSnapshotNamespace, 'labels' | 'nextLabel' | 'graph'> {
  const { labels, nextLabel, graph } = entry;
  if (!isCount(nextLabel) || nextLabel < size)
    throw snapshotError(`${at} has an invalid nextLabel`);
  if (!Array.isArray(labels) || labels.length !== size) {
    throw snapshotError(`${at} has labels of a different length than its ids`);
  }
  const unique = new Set<number>();
  for (const label of labels) {
    if (!isCount(label) || label >= nextLabel || unique.has(label)) {
      throw snapshotError(`${at} has an invalid or duplicate label`);
    }
    unique.add(label);
  }
  if (!isRecord(graph)) throw snapshotError(`${at} has an invalid graph entry`);
  const { kind, cursor, byteLength } = graph;
  if (typeof kind !== 'string' || !isCount(cursor) || cursor > nextLabel || !isCount(byteLength)) {
    throw snapshotError(`${at} has an invalid graph entry`);
  }
  return { labels: labels as number[], nextLabel, graph: { kind, cursor, byteLength } };
}
