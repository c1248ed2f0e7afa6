import { describe, expect, it } from 'vitest';
import {
  crc32,
  decodeSnapshot,
  encodeSnapshot,
  SNAPSHOT_FORMAT_VERSION,
} from '../../../src/adapters/memory/snapshot.js';
import { ValidationError } from '../../../src/errors/index.js';

describe('snapshot format', () => {
  it('computes the standard CRC-32', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
  });

  it('computes the same CRC-32 at every alignment and length (word and byte paths)', () => {
    // Bit-by-bit reference, independent of the table-driven implementation.
    const reference = (bytes: Uint8Array): number => {
      let crc = 0xffffffff;
      for (const byte of bytes) {
        crc ^= byte;
        for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
      }
      return (crc ^ 0xffffffff) >>> 0;
    };
    const buffer = Uint8Array.from({ length: 160 }, (_, index) => (index * 131 + 7) & 0xff);
    for (let offset = 0; offset < 8; offset++) {
      for (const length of [0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 64, 100, 151]) {
        const view = buffer.subarray(offset, offset + length);
        expect(crc32(view), `offset ${offset}, length ${length}`).toBe(reference(view));
      }
    }
  });

  it('round-trips JSON and aligned binary sections', () => {
    const floats = Float32Array.from([1.5, -2, 3.25]);
    const bytes = encodeSnapshot('vectors', { a: 'é', n: [1, 2] }, [floats, Uint8Array.from([9])]);
    expect(new TextDecoder().decode(bytes.subarray(0, 8))).toBe('CTXSNAP1');
    expect(new DataView(bytes.buffer).getUint16(8, true)).toBe(SNAPSHOT_FORMAT_VERSION);
    const { json, binary } = decodeSnapshot(bytes, 'vectors');
    expect(json).toEqual({ a: 'é', n: [1, 2] });
    expect([...new Float32Array(binary.buffer, binary.byteOffset, 3)]).toEqual([1.5, -2, 3.25]);
    expect(binary[12]).toBe(9);
  });

  it('decodes from a misaligned view by copying the binary section', () => {
    const bytes = encodeSnapshot('graph', {}, [Float32Array.from([7])]);
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    const { binary } = decodeSnapshot(shifted.subarray(1), 'graph');
    expect(new Float32Array(binary.buffer, binary.byteOffset, 1)[0]).toBe(7);
  });

  it('rejects every flipped byte with a ValidationError on the snapshot field', () => {
    const bytes = encodeSnapshot('keywords', { text: 'hello' }, [Uint8Array.from([1, 2, 3, 4])]);
    for (let at = 0; at < bytes.length; at++) {
      if (at === 11) continue; // reserved byte
      const copy = bytes.slice();
      copy[at]! ^= 0x41;
      let error: unknown;
      try {
        decodeSnapshot(copy, 'keywords');
      } catch (caught) {
        error = caught;
      }
      expect(ValidationError.isInstance(error), `byte ${at}`).toBe(true);
      expect((error as ValidationError).issues[0]?.path).toBe('snapshot');
    }
  });
});
