/**
 * The ranks of a BPE encoding's tokens by their bytes, in an open-addressing table of one typed
 * array: looked up by a range of a string whose UTF-16 units are bytes (0–255), without slicing
 * the range or hashing a string key. It stands where a `Map` from 100,000 byte strings to ranks
 * would: building it allocates no string, and a lookup touches the table and the token's bytes.
 * @module
 */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** Spreads the hash's bits before they are masked to a slot. */
function spread(hash: number): number {
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  return hash ^ (hash >>> 13);
}

/** Token ranks by their bytes. */
export class RankIndex {
  /** Per slot, the rank of the token there plus one; 0 for an empty slot. */
  private readonly slots: Int32Array;
  private readonly mask: number;

  /**
   * Indexes every token of `bytes` / `offsets` (rank `r`'s bytes are `bytes[offsets[r],
   * offsets[r + 1])`; a rank without bytes is unused). Where two ranks have the same bytes, the
   * higher rank is kept.
   */
  constructor(
    private readonly bytes: Uint8Array,
    private readonly offsets: Uint32Array,
  ) {
    const count = offsets.length - 1;
    let size = 1024;
    // At most half full: probes stay short.
    while (size < count * 2) size *= 2;
    this.slots = new Int32Array(size);
    this.mask = size - 1;
    for (let rank = 0; rank < count; rank++) {
      const start = offsets[rank]!;
      const end = offsets[rank + 1]!;
      if (end === start) continue;
      let hash = FNV_OFFSET;
      for (let at = start; at < end; at++) hash = Math.imul(hash ^ bytes[at]!, FNV_PRIME);
      let slot = spread(hash) & this.mask;
      for (;;) {
        const found = this.slots[slot]! - 1;
        if (found < 0 || this.sameBytes(found, start, end)) break;
        slot = (slot + 1) & this.mask;
      }
      this.slots[slot] = rank + 1;
    }
  }

  /** Whether rank `rank`'s bytes are `bytes[start, end)`. */
  private sameBytes(rank: number, start: number, end: number): boolean {
    const { bytes, offsets } = this;
    const from = offsets[rank]!;
    if (offsets[rank + 1]! - from !== end - start) return false;
    for (let at = 0; at < end - start; at++) {
      if (bytes[from + at] !== bytes[start + at]) return false;
    }
    return true;
  }

  /**
   * The rank of the token whose bytes are the units of `key[start, end)`, or -1 when no token
   * has them (also when a unit is over 255: it is no byte).
   */
  get(key: string, start: number, end: number): number {
    let hash = FNV_OFFSET;
    for (let at = start; at < end; at++) hash = Math.imul(hash ^ key.charCodeAt(at), FNV_PRIME);
    const { bytes, offsets, slots, mask } = this;
    const length = end - start;
    for (let slot = spread(hash) & mask; ; slot = (slot + 1) & mask) {
      const rank = slots[slot]! - 1;
      if (rank < 0) return -1;
      const from = offsets[rank]!;
      if (offsets[rank + 1]! - from !== length) continue;
      let at = 0;
      while (at < length && bytes[from + at] === key.charCodeAt(start + at)) at++;
      if (at === length) return rank;
    }
  }
}
