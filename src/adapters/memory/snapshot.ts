/**
 * The byte format of in-memory store snapshots: a 24-byte header, a JSON section and an
 * optional binary section (little-endian typed-array data), with a CRC-32 over both sections.
 *
 * | offset | bytes | content |
 * | --- | --- | --- |
 * | 0 | 8 | magic `CTXSNAP1` |
 * | 8 | 2 | format version (u16) |
 * | 10 | 1 | kind: 1 vectors, 2 keywords, 3 graph |
 * | 11 | 1 | reserved (0) |
 * | 12 | 4 | JSON section length in bytes (u32) |
 * | 16 | 4 | binary section length in bytes (u32) |
 * | 20 | 4 | CRC-32 of everything after the header |
 * | 24 | … | JSON (UTF-8), zero-padded to a multiple of 4, then the binary section |
 *
 * Pure and runtime-neutral (no `node:` imports): file I/O lives in the CLI.
 */
import { ValidationError } from '../../errors/index.js';
import { isUint8Array } from '../../util/realm.js';

/** The snapshot format version this build writes and reads. */
export const SNAPSHOT_FORMAT_VERSION = 1;

/** Which store a snapshot belongs to. */
export type SnapshotKind = 'vectors' | 'keywords' | 'graph';

const MAGIC = 'CTXSNAP1';
const HEADER_BYTES = 24;
const KIND_CODES: Record<SnapshotKind, number> = { vectors: 1, keywords: 2, graph: 3 };

/** The decoded sections of a snapshot. */
export interface DecodedSnapshot {
  /** The parsed JSON section (untrusted shape: validate it). */
  readonly json: unknown;
  /** The binary section, 4-byte aligned (empty when the snapshot has none). */
  readonly binary: Uint8Array;
}

/** A `ValidationError` on the `snapshot` field. */
export function snapshotError(message: string): ValidationError {
  return new ValidationError(`Invalid snapshot: ${message}`, [{ path: 'snapshot', message }]);
}

let crcTable: Uint32Array | undefined;

/** CRC-32 lookup tables for slicing-by-8: table `t` at `t * 256`. */
function table(): Uint32Array {
  if (crcTable) return crcTable;
  crcTable = new Uint32Array(256 * 8);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    crcTable[n] = c >>> 0;
  }
  for (let n = 0; n < 256; n++) {
    for (let t = 1; t < 8; t++) {
      const previous = crcTable[(t - 1) * 256 + n]!;
      crcTable[t * 256 + n] = (crcTable[previous & 0xff]! ^ (previous >>> 8)) >>> 0;
    }
  }
  return crcTable;
}

/**
 * CRC-32 (IEEE) of the bytes. Slicing-by-8, reading whole 32-bit words where the bytes are
 * 4-byte aligned on a little-endian platform (about twice the speed of slicing-by-4 on a
 * 300 MB snapshot), byte by byte elsewhere.
 */
export function crc32(bytes: Uint8Array): number {
  const t = table();
  let crc = 0xffffffff;
  let index = 0;
  const length = bytes.length;
  // Bytes up to a 4-byte boundary, so the bulk can be read as words.
  while (index < length && (bytes.byteOffset + index) % 4 !== 0) {
    crc = t[(crc ^ bytes[index]!) & 0xff]! ^ (crc >>> 8);
    index++;
  }
  const words = (length - index) >>> 3;
  if (words > 0 && littleEndian()) {
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset + index, words * 2);
    for (let w = 0; w < view.length; w += 2) {
      const low = view[w]! ^ crc;
      const high = view[w + 1]!;
      crc =
        t[1792 + (low & 0xff)]! ^
        t[1536 + ((low >>> 8) & 0xff)]! ^
        t[1280 + ((low >>> 16) & 0xff)]! ^
        t[1024 + (low >>> 24)]! ^
        t[768 + (high & 0xff)]! ^
        t[512 + ((high >>> 8) & 0xff)]! ^
        t[256 + ((high >>> 16) & 0xff)]! ^
        t[high >>> 24]!;
    }
    index += words * 8;
  }
  for (; index < length; index++) crc = t[(crc ^ bytes[index]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function littleEndian(): boolean {
  return new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
}

/** Encodes a snapshot: JSON data plus binary chunks (typed arrays, copied in order). */
export function encodeSnapshot(
  kind: SnapshotKind,
  json: unknown,
  binary: readonly ArrayBufferView[] = [],
): Uint8Array {
  if (!littleEndian()) throw new Error('snapshots need a little-endian platform');
  const text = new TextEncoder().encode(JSON.stringify(json));
  const padded = Math.ceil(text.length / 4) * 4;
  const binaryBytes = binary.reduce((sum, view) => sum + view.byteLength, 0);
  if (padded > 0xffffffff || binaryBytes > 0xffffffff) {
    throw new RangeError('snapshot sections must be smaller than 4 GiB');
  }
  const bytes = new Uint8Array(HEADER_BYTES + padded + binaryBytes);
  for (let index = 0; index < MAGIC.length; index++) bytes[index] = MAGIC.charCodeAt(index);
  const view = new DataView(bytes.buffer);
  view.setUint16(8, SNAPSHOT_FORMAT_VERSION, true);
  view.setUint8(10, KIND_CODES[kind]);
  view.setUint32(12, text.length, true);
  view.setUint32(16, binaryBytes, true);
  bytes.set(text, HEADER_BYTES);
  let offset = HEADER_BYTES + padded;
  for (const chunk of binary) {
    bytes.set(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength), offset);
    offset += chunk.byteLength;
  }
  view.setUint32(20, crc32(bytes.subarray(HEADER_BYTES)), true);
  return bytes;
}

/**
 * Checks a snapshot's header, kind, version, lengths and checksum and returns its sections.
 * Throws a `ValidationError` (path `snapshot`) naming what is wrong.
 */
export function decodeSnapshot(bytes: unknown, kind: SnapshotKind): DecodedSnapshot {
  if (!isUint8Array(bytes)) throw snapshotError('must be a Uint8Array');
  if (bytes.length < HEADER_BYTES) throw snapshotError('is truncated (no complete header)');
  for (let index = 0; index < MAGIC.length; index++) {
    if (bytes[index] !== MAGIC.charCodeAt(index)) {
      throw snapshotError('is not a cortexis snapshot (bad magic bytes)');
    }
  }
  if (!littleEndian()) throw snapshotError('cannot be read on a big-endian platform');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint16(8, true);
  if (version !== SNAPSHOT_FORMAT_VERSION) {
    throw snapshotError(
      `has format version ${version}; this build reads version ${SNAPSHOT_FORMAT_VERSION}`,
    );
  }
  const code = view.getUint8(10);
  const actual = (Object.keys(KIND_CODES) as SnapshotKind[]).find(
    (key) => KIND_CODES[key] === code,
  );
  if (actual !== kind) {
    throw snapshotError(`holds ${actual ?? `unknown kind ${code}`}, not ${kind}`);
  }
  const textLength = view.getUint32(12, true);
  const binaryLength = view.getUint32(16, true);
  const padded = Math.ceil(textLength / 4) * 4;
  if (bytes.length !== HEADER_BYTES + padded + binaryLength) {
    throw snapshotError(
      `is ${bytes.length} bytes; its header announces ${HEADER_BYTES + padded + binaryLength}`,
    );
  }
  if (crc32(bytes.subarray(HEADER_BYTES)) !== view.getUint32(20, true)) {
    throw snapshotError('is corrupt (checksum mismatch)');
  }
  let json: unknown;
  try {
    json = JSON.parse(
      new TextDecoder('utf-8', { fatal: true }).decode(
        bytes.subarray(HEADER_BYTES, HEADER_BYTES + textLength),
      ),
    );
  } catch {
    throw snapshotError('has an unreadable JSON section');
  }
  const start = HEADER_BYTES + padded;
  // Copy when misaligned so callers can view the section as Float32Array.
  const binary = (bytes.byteOffset + start) % 4 === 0 ? bytes.subarray(start) : bytes.slice(start);
  return { json, binary };
}
