/**
 * Snapshots of the memory vector store: every namespace's ids and metadata as JSON and its
 * dimension-major vector columns as the binary section (no graph), and the checked rebuild
 * of the namespaces from those bytes.
 */
import type { Metadata } from '../../ports/common.js';
import { decodeSnapshot, encodeSnapshot, snapshotError } from './snapshot.js';
import { createSpace, type Space } from './vector-space.js';

/** Rebuilds the namespaces of a vector snapshot, each with room for at least `initialCapacity` rows. */
export function spacesFromSnapshot(bytes: Uint8Array, initialCapacity: number): Map<string, Space> {
  const { json, binary } = decodeSnapshot(bytes, 'vectors');
  const namespaces = parseVectorSnapshot(json);
  const total = namespaces.reduce((sum, entry) => sum + entry.ids.length * entry.dimensions, 0);
  if (binary.byteLength !== total * 4) {
    throw snapshotError(`has ${binary.byteLength} bytes of vectors; expected ${total * 4}`);
  }
  const values = new Float32Array(binary.buffer, binary.byteOffset, total);
  for (let index = 0; index < values.length; index++) {
    if (!Number.isFinite(values[index]!)) throw snapshotError('holds a non-finite vector value');
  }
  const restored = new Map<string, Space>();
  let offset = 0;
  for (const entry of namespaces) {
    const size = entry.ids.length;
    const space = createSpace(entry.dimensions, Math.max(initialCapacity, size));
    for (let d = 0; d < entry.dimensions; d++) {
      space.data.set(values.subarray(offset, offset + size), d * space.capacity);
      offset += size;
    }
    space.size = size;
    entry.ids.forEach((id, slot) => {
      space.ids.push(id);
      space.metadata.push(Object.freeze({ ...entry.metadata[slot]! }));
      space.slots.set(id, slot);
      space.labels.push(slot);
      space.labelSlots.set(slot, slot);
    });
    space.nextLabel = size;
    restored.set(entry.name, space);
  }
  return restored;
}

/** Every non-empty namespace's vectors and metadata as snapshot bytes (no graph). */
export function snapshotSpaces(spaces: ReadonlyMap<string, Space>): Uint8Array {
  const entries: VectorSnapshotNamespace[] = [];
  const columns: Float32Array[] = [];
  for (const [name, space] of spaces) {
    if (space.size === 0) continue;
    entries.push({
      name,
      dimensions: space.dimensions,
      ids: space.ids.slice(0, space.size),
      metadata: space.metadata.slice(0, space.size),
    });
    for (let d = 0; d < space.dimensions; d++) {
      const from = d * space.capacity;
      columns.push(space.data.subarray(from, from + space.size));
    }
  }
  return encodeSnapshot('vectors', { namespaces: entries }, columns);
}

/** One namespace in a vector snapshot's JSON section. */
interface VectorSnapshotNamespace {
  readonly name: string;
  readonly dimensions: number;
  readonly ids: readonly string[];
  readonly metadata: readonly Metadata[];
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
    return { name, dimensions, ids: ids as string[], metadata: metadata as Metadata[] };
  });
}
