/**
 * The exact search of the memory vector store: a bounded top-k heap, the per-slot cosine and
 * the column-wise scan of a whole namespace (with or without a metadata filter), both summed
 * in the same order so every path gives bit-identical scores.
 */
import type { VectorMatch, VectorQueryOptions } from '../../ports/vector-store.js';
import { compileFilter } from '../../query/filter.js';
import type { ScanMemory } from './vector-scan-kernel.js';
import { matchingSlots, type Space } from './vector-space.js';

/** Better-first order of two hits: higher score, then smaller id (deterministic ties). */
function better(scoreA: number, idA: string, scoreB: number, idB: string): boolean {
  return scoreA > scoreB || (scoreA === scoreB && idA < idB);
}

/**
 * A bounded min-heap of slots keyed by score: keeps the `k` best seen so far, worst at the
 * root, so each candidate costs one comparison unless it enters the top k.
 */
export class TopK {
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

  // Temporaries, not destructuring: a swap allocated two arrays wherever it was not optimised.
  private swap(i: number, j: number): void {
    const { slots, scores } = this;
    const slot = slots[i]!;
    slots[i] = slots[j]!;
    slots[j] = slot;
    const score = scores[i]!;
    scores[i] = scores[j]!;
    scores[j] = score;
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

/** The query's non-zero components (the exact scan skips the others). */
export function nonZeroComponents(unit: Float32Array): number[] {
  const nonZero: number[] = [];
  for (let d = 0; d < unit.length; d++) if (unit[d] !== 0) nonZero.push(d);
  return nonZero;
}

/**
 * Exact cosine of the unit query with the vector in `slot`, summed in the same order as
 * {@link accumulate} so both paths give bit-identical scores (and the same tie order).
 */
export function scoreSlot(
  space: Space,
  slot: number,
  unit: Float32Array,
  nonZero: number[],
): number {
  const { data, capacity } = space;
  let score = 0;
  let k = 0;
  for (; k + 3 < nonZero.length; k += 4) {
    const [d1, d2, d3, d4] = [nonZero[k]!, nonZero[k + 1]!, nonZero[k + 2]!, nonZero[k + 3]!];
    score +=
      unit[d1]! * data[d1 * capacity + slot]! +
      unit[d2]! * data[d2 * capacity + slot]! +
      unit[d3]! * data[d3 * capacity + slot]! +
      unit[d4]! * data[d4 * capacity + slot]!;
  }
  for (; k < nonZero.length; k++) {
    const d = nonZero[k]!;
    score += unit[d]! * data[d * capacity + slot]!;
  }
  return score;
}

/**
 * Adds `weight · column` to `scores` for the query's non-zero components, four columns per
 * sum (fewer passes over `scores`: about 2× faster than one at a time, measured) and two such
 * sums per pass (measured on 5,495 rows × 384 dimensions, 230 non-zero: 12 % less CPU than one
 * sum per pass; four sums per pass spill registers and take twice as long). Each slot adds the
 * same four-column sums in the same order as {@link scoreSlot}: the scores are bit-identical.
 */
function accumulate(space: Space, unit: Float32Array): Float64Array {
  const { data, size, capacity, scores } = space;
  scores.fill(0, 0, size);
  const nonZero = nonZeroComponents(unit);
  if (space.kernel !== null) return accumulateInKernel(space.kernel, space, unit, nonZero);
  let k = 0;
  for (; k + 7 < nonZero.length; k += 8) {
    const d1 = nonZero[k]!;
    const d2 = nonZero[k + 1]!;
    const d3 = nonZero[k + 2]!;
    const d4 = nonZero[k + 3]!;
    const d5 = nonZero[k + 4]!;
    const d6 = nonZero[k + 5]!;
    const d7 = nonZero[k + 6]!;
    const d8 = nonZero[k + 7]!;
    const w1 = unit[d1]!;
    const w2 = unit[d2]!;
    const w3 = unit[d3]!;
    const w4 = unit[d4]!;
    const w5 = unit[d5]!;
    const w6 = unit[d6]!;
    const w7 = unit[d7]!;
    const w8 = unit[d8]!;
    const b1 = d1 * capacity;
    const b2 = d2 * capacity;
    const b3 = d3 * capacity;
    const b4 = d4 * capacity;
    const b5 = d5 * capacity;
    const b6 = d6 * capacity;
    const b7 = d7 * capacity;
    const b8 = d8 * capacity;
    for (let slot = 0; slot < size; slot++) {
      let score = scores[slot]!;
      score +=
        w1 * data[b1 + slot]! +
        w2 * data[b2 + slot]! +
        w3 * data[b3 + slot]! +
        w4 * data[b4 + slot]!;
      score +=
        w5 * data[b5 + slot]! +
        w6 * data[b6 + slot]! +
        w7 * data[b7 + slot]! +
        w8 * data[b8 + slot]!;
      scores[slot] = score;
    }
  }
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

/**
 * `accumulate` in the WebAssembly SIMD kernel: the same groups of eight, four and one
 * columns, each slot's sums in the same order, so the scores are bit-identical to the JS loop
 * (about 2.5× faster on 5,495 rows × 384 dimensions, measured).
 */
function accumulateInKernel(
  kernel: ScanMemory,
  space: Space,
  unit: Float32Array,
  nonZero: number[],
): Float64Array {
  const { size } = space;
  const stride = space.capacity * 4;
  const at = (d: number): number => kernel.dataOffset + d * stride;
  const n = nonZero;
  let k = 0;
  for (; k + 7 < n.length; k += 8) {
    kernel.acc8(
      0,
      size,
      at(n[k]!),
      at(n[k + 1]!),
      at(n[k + 2]!),
      at(n[k + 3]!),
      at(n[k + 4]!),
      at(n[k + 5]!),
      at(n[k + 6]!),
      at(n[k + 7]!),
      unit[n[k]!]!,
      unit[n[k + 1]!]!,
      unit[n[k + 2]!]!,
      unit[n[k + 3]!]!,
      unit[n[k + 4]!]!,
      unit[n[k + 5]!]!,
      unit[n[k + 6]!]!,
      unit[n[k + 7]!]!,
    );
  }
  for (; k + 3 < n.length; k += 4) {
    kernel.acc4(
      0,
      size,
      at(n[k]!),
      at(n[k + 1]!),
      at(n[k + 2]!),
      at(n[k + 3]!),
      unit[n[k]!]!,
      unit[n[k + 1]!]!,
      unit[n[k + 2]!]!,
      unit[n[k + 3]!]!,
    );
  }
  for (; k < n.length; k++) kernel.acc1(0, size, at(n[k]!), unit[n[k]!]!);
  return kernel.scores;
}

/** The `k` best matches of a unit query by an exact scan of the namespace (filtered if asked). */
export function search(
  space: Space,
  unit: Float32Array,
  options: VectorQueryOptions,
): VectorMatch[] {
  const { size } = space;
  const heap = new TopK(Math.min(options.k, size), space.ids);
  if (options.filter !== undefined) {
    // A selective filter (e.g. a few documents): score only the records it lets through.
    const slots = matchingSlots(space, options.filter, compileFilter(options.filter));
    if (slots.length <= size / 8) {
      const nonZero = nonZeroComponents(unit);
      for (const slot of slots) heap.push(slot, scoreSlot(space, slot, unit, nonZero));
      return toMatches(space, heap);
    }
    const allowed = new Uint8Array(size);
    for (const slot of slots) allowed[slot] = 1;
    const scores = accumulate(space, unit);
    let floor = heap.floor;
    for (let slot = 0; slot < size; slot++) {
      const score = scores[slot]!;
      if (allowed[slot] === 1 && score >= floor) {
        heap.push(slot, score);
        floor = heap.floor;
      }
    }
    return toMatches(space, heap);
  }
  const scores = accumulate(space, unit);
  // The floor changes only when a hit enters the heap.
  let floor = heap.floor;
  for (let slot = 0; slot < size; slot++) {
    const score = scores[slot]!;
    if (score >= floor) {
      heap.push(slot, score);
      floor = heap.floor;
    }
  }
  return toMatches(space, heap);
}

/** The heap's hits as matches, best first, scores clamped to [−1, 1]. */
export function toMatches(space: Space, heap: TopK): VectorMatch[] {
  return heap.sorted().map(({ slot, score }) => ({
    id: space.ids[slot]!,
    score: Math.max(-1, Math.min(1, score)),
    metadata: space.metadata[slot]!,
  }));
}
