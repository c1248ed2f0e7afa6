import { describe, expect, it } from 'vitest';

import {
  dedupe,
  meanMetric,
  ndcgAtK,
  parseQrels,
  percentile,
  recallAtK,
} from '../../bench/metrics.js';

describe('bench metrics', () => {
  const judgements = new Map([
    ['d1', 1],
    ['d4', 1],
    ['d9', 1],
  ]);

  it('computes nDCG@k with the log2 discount and the ideal DCG from the qrels', () => {
    // Relevant at ranks 2 and 3: DCG = 1/log2(3) + 1/log2(4) = 0.63093 + 0.5 = 1.13093
    // Ideal (3 relevant): 1 + 0.63093 + 0.5 = 2.13093 → nDCG = 0.53072
    expect(ndcgAtK(['x', 'd1', 'd4', 'y'], judgements, 10)).toBeCloseTo(0.53072, 4);
    expect(ndcgAtK(['d1', 'd4', 'd9'], judgements, 10)).toBeCloseTo(1, 10);
    // Cut-off: with k = 2 only 'd1' at rank 2 counts; ideal@2 = 1 + 0.63093
    expect(ndcgAtK(['x', 'd1', 'd4'], judgements, 2)).toBeCloseTo(0.63093 / 1.63093, 4);
    expect(ndcgAtK(['x'], new Map(), 10)).toBe(0);
  });

  it('uses graded gains', () => {
    const graded = new Map([
      ['a', 2],
      ['b', 1],
    ]);
    // DCG = 1 + 2/log2(3); ideal = 2 + 1/log2(3)
    expect(ndcgAtK(['b', 'a'], graded, 10)).toBeCloseTo(
      (1 + 2 / Math.log2(3)) / (2 + 1 / Math.log2(3)),
      10,
    );
  });

  it('computes recall@k', () => {
    expect(recallAtK(['d1', 'x', 'd9'], judgements, 100)).toBeCloseTo(2 / 3, 10);
    expect(recallAtK(['d1', 'x', 'd9'], judgements, 2)).toBeCloseTo(1 / 3, 10);
  });

  it('averages over judged queries; a query missing from the run scores 0', () => {
    const qrels = new Map([
      ['q1', new Map([['a', 1]])],
      ['q2', new Map([['b', 1]])],
    ]);
    const run = new Map([['q1', ['a']]]);
    expect(meanMetric(run, qrels, (ranking, judged) => recallAtK(ranking, judged, 10))).toBe(0.5);
  });

  it('parses qrels, dedupes rankings and takes percentiles', () => {
    const qrels = parseQrels('query-id\tcorpus-id\tscore\n1\t31715818\t1\n1\t42\t0\n3\t7\t1\n');
    expect(qrels.get('1')?.get('31715818')).toBe(1);
    expect(qrels.get('1')?.get('42')).toBe(0);
    expect(qrels.size).toBe(2);
    expect(dedupe(['a', 'b', 'a', 'c'])).toEqual(['a', 'b', 'c']);
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
  });
});
