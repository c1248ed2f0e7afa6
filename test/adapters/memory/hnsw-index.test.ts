import { beforeAll, describe, expect, it } from 'vitest';
import {
  createHnswIndex,
  hnswError,
  loadHnswLibrary,
  type HnswLibrary,
} from '../../../src/adapters/memory/hnsw-index.js';

function unit(values: number[]): Float32Array {
  const norm = Math.hypot(...values);
  return Float32Array.from(values, (value) => value / norm);
}

describe('createHnswIndex', () => {
  let library: HnswLibrary;
  beforeAll(async () => {
    library = await loadHnswLibrary();
  });

  it('loads hnswlib-wasm in Node and restores the globals it touched', async () => {
    expect(typeof library.HierarchicalNSW).toBe('function');
    expect('importScripts' in globalThis).toBe(false);
    expect(await loadHnswLibrary()).toBe(library);
  });

  it('finds nearest labels with cosine scores, best first', () => {
    const index = createHnswIndex(library, 3, {}, 4);
    index.add(10, unit([1, 0, 0]));
    index.add(11, unit([1, 1, 0]));
    index.add(12, unit([0, 0, 1]));
    const hits = index.search(unit([1, 0.1, 0]), 2);
    expect(hits.map((hit) => hit.label)).toEqual([10, 11]);
    expect(hits[0]!.score).toBeCloseTo(1 / Math.hypot(1, 0.1), 5);
    expect(index.size).toBe(3);
    index.dispose();
  });

  it('grows past its capacity and reuses deleted points', () => {
    const index = createHnswIndex(library, 2, { m: 4, efConstruction: 16 }, 1);
    for (let label = 0; label < 40; label++) {
      const angle = (label / 40) * Math.PI;
      index.add(label, unit([Math.cos(angle), Math.sin(angle)]));
    }
    expect(index.size).toBe(40);
    index.remove(0);
    expect(index.size).toBe(39);
    expect(index.search(unit([1, 0]), 1)[0]!.label).toBe(1);
    index.add(100, unit([1, 0]));
    expect(index.size).toBe(40);
    expect(index.search(unit([1, 0]), 1)[0]!.label).toBe(100);
    expect(index.search(unit([1, 0]), 500)).toHaveLength(40);
    index.dispose();
  });

  it('returns nothing when empty and turns wasm exceptions into Errors', () => {
    const index = createHnswIndex(library, 3);
    expect(index.search(unit([1, 0, 0]), 5)).toEqual([]);
    expect(() => index.add(1, new Float32Array(2))).toThrow(/dimension/);
    expect(() => index.remove(42)).toThrow(/Label not found/);
    index.dispose();
    expect(hnswError({ message: ['std::runtime_error', 'boom'] }).message).toBe(
      'hnswlib: std::runtime_error: boom',
    );
  });

  it('rejects invalid parameters', () => {
    expect(() => createHnswIndex(library, 0)).toThrow(RangeError);
    expect(() => createHnswIndex(library, 3, { m: 0 })).toThrow(/m must be/);
  });
});
