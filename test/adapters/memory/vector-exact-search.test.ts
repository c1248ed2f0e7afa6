import { describe, expect, it } from 'vitest';
import {
  nonZeroComponents,
  scoreSlot,
  search,
} from '../../../src/adapters/memory/vector-exact-search.js';
import {
  createSpace,
  KERNEL_MIN_ROWS,
  remove,
  write,
} from '../../../src/adapters/memory/vector-space.js';

/** Deterministic pseudo-random numbers in [-0.5, 0.5). */
function generator(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1664525 + 1013904223) >>> 0) / 2 ** 32 - 0.5;
}

function unit(values: number[]): Float32Array {
  const norm = Math.hypot(...values);
  return Float32Array.from(values, (value) => value / norm);
}

describe('exact vector scan', () => {
  // 8-column passes, a 4-column pass and single columns all run for 37 non-zero components.
  const dimensions = 40;
  const next = generator(7);
  const space = createSpace(dimensions, 4);
  for (let row = 0; row < 300; row++) {
    const values = Array.from({ length: dimensions }, next);
    write(space, { id: `r${row}`, vector: unit(values), metadata: { row } });
  }
  const queryValues = Array.from({ length: dimensions }, (_, d) =>
    [4, 13, 22].includes(d) ? 0 : next(),
  );
  const query = unit(queryValues);

  it('scores every row bit-identically to the per-row cosine, whatever the column grouping', () => {
    const nonZero = nonZeroComponents(query);
    expect(nonZero.length % 8).toBeGreaterThanOrEqual(5); // a 4-column pass and singles remain
    const matches = search(space, query, { k: space.size });
    expect(matches).toHaveLength(300);
    for (const match of matches) {
      const slot = space.slots.get(match.id)!;
      const expected = Math.max(-1, Math.min(1, scoreSlot(space, slot, query, nonZero)));
      expect(match.score).toBe(expected);
    }
  });

  it('returns the same scores through the filtered path', () => {
    const all = new Map(search(space, query, { k: space.size }).map((m) => [m.id, m.score]));
    // A selective filter (≤ 1/8 of the rows) scores row by row; a loose one scans the columns.
    for (const rows of [[3, 50, 120, 299], Array.from({ length: 200 }, (_, i) => i)]) {
      const filtered = search(space, query, {
        k: 10,
        filter: { row: { $in: rows } },
      });
      expect(filtered.length).toBe(Math.min(10, rows.length));
      for (const match of filtered) expect(match.score).toBe(all.get(match.id));
    }
  });

  it('keeps a sum-order-exact reference: four-column sums added in component order', () => {
    const nonZero = nonZeroComponents(query);
    const slot = 17;
    let reference = 0;
    let k = 0;
    const at = (d: number) => space.data[d * space.capacity + slot]!;
    for (; k + 3 < nonZero.length; k += 4) {
      const [a, b, c, d] = [nonZero[k]!, nonZero[k + 1]!, nonZero[k + 2]!, nonZero[k + 3]!];
      reference += query[a]! * at(a) + query[b]! * at(b) + query[c]! * at(c) + query[d]! * at(d);
    }
    for (; k < nonZero.length; k++) reference += query[nonZero[k]!]! * at(nonZero[k]!);
    const match = search(space, query, { k: space.size }).find((m) => m.id === 'r17')!;
    expect(match.score).toBe(reference);
  });
});

describe('exact vector scan in the WebAssembly SIMD kernel', () => {
  const dimensions = 48;

  /** A kernel space and a plain-array space holding the same rows (ids r0…). */
  function pair(rows: number, seed: number) {
    const next = generator(seed);
    const inKernel = createSpace(dimensions, KERNEL_MIN_ROWS);
    const inJs = createSpace(dimensions, 4, false);
    for (let row = 0; row < rows; row++) {
      const record = {
        id: `r${row}`,
        vector: unit(Array.from({ length: dimensions }, next)),
        metadata: { row },
      };
      write(inKernel, record);
      write(inJs, record);
    }
    return { inKernel, inJs, next };
  }

  it('moves a space into its memory once its capacity reaches KERNEL_MIN_ROWS rows', () => {
    const next = generator(9);
    const space = createSpace(dimensions, 4);
    const record = (row: number) => ({
      id: `r${row}`,
      vector: unit(Array.from({ length: dimensions }, next)),
      metadata: {},
    });
    // Capacity doubles from 4: 128 rows fit below the threshold, the 129th grows it to 256.
    for (let row = 0; row < KERNEL_MIN_ROWS / 2; row++) write(space, record(row));
    expect(space.kernel).toBeNull();
    write(space, record(KERNEL_MIN_ROWS / 2));
    expect(space.capacity).toBe(KERNEL_MIN_ROWS);
    expect(space.kernel).not.toBeNull();
    expect(space.data.buffer).toBe(space.kernel!.data.buffer);
    expect(search(space, unit(Array.from({ length: dimensions }, next)), { k: 3 })).toHaveLength(3);
  });

  it('runs in Node, holding the columns in its memory; the fallback keeps plain arrays', () => {
    const { inKernel, inJs } = pair(20, 3);
    expect(inKernel.kernel).not.toBeNull();
    expect(inKernel.data.buffer).toBe(inKernel.kernel!.data.buffer);
    expect(inKernel.scores.buffer).toBe(inKernel.data.buffer);
    expect(inJs.kernel).toBeNull();
  });

  it('gives bit-identical scores and order to the JS loop, at every size (odd ones, growth, removals)', () => {
    for (const rows of [1, 2, 7, 9, 64, 65, 257, 1000]) {
      const { inKernel, inJs, next } = pair(rows, rows);
      if (rows > 9) {
        for (const id of ['r3', 'r8']) {
          remove(inKernel, id);
          remove(inJs, id);
        }
      }
      // 8-, 4- and 1-column passes: 45 non-zero components.
      const query = unit(
        Array.from({ length: dimensions }, (_, d) => ([0, 17, 40].includes(d) ? 0 : next())),
      );
      const fromKernel = search(inKernel, query, { k: inKernel.size });
      const fromJs = search(inJs, query, { k: inJs.size });
      expect(fromKernel.map((m) => [m.id, m.score])).toEqual(fromJs.map((m) => [m.id, m.score]));
      expect(fromKernel.length).toBe(inKernel.size);
    }
  });

  it('does not let the padded steps past the last row leak into later rows', () => {
    // Three rows: the kernel's eight-slot step writes scores past row 2; a fourth row added
    // afterwards must score from its own vector only.
    const { inKernel, inJs, next } = pair(3, 11);
    const query = unit(Array.from({ length: dimensions }, next));
    search(inKernel, query, { k: 3 });
    const record = {
      id: 'late',
      vector: unit(Array.from({ length: dimensions }, next)),
      metadata: {},
    };
    write(inKernel, record);
    write(inJs, record);
    expect(search(inKernel, query, { k: 4 })).toEqual(search(inJs, query, { k: 4 }));
  });
});
