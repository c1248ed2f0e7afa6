import { describe, expect, it } from 'vitest';
import { auc, bestThreshold, demote, type Rated } from '../../bench/docs/separation.js';

const SIGNALS = {
  overall: 0,
  sourceQuality: 0,
  sourceDiversity: 0,
  semanticCohesion: 0,
  llmCertainty: 0,
  topScore: 0,
};

function item(right: boolean, topScore: number, low = false): Rated {
  return { right, low, values: { ...SIGNALS, topScore } };
}

describe('bench/docs/separation', () => {
  it('computes the AUC of right against wrong, ties counting half', () => {
    const items = [item(true, 0.9), item(true, 0.5), item(false, 0.5), item(false, 0.1)];
    // pairs: (0.9,0.5) 1, (0.9,0.1) 1, (0.5,0.5) 0.5, (0.5,0.1) 1 → 3.5 / 4
    expect(auc(items, 'topScore')).toBe(0.875);
    expect(auc([item(true, 1)], 'topScore')).toBeNull();
  });

  it('counts the answers a threshold demotes, keeping those already low', () => {
    const items = [item(true, 0.9), item(true, 0.2, true), item(false, 0.3), item(false, 0.8)];
    expect(demote(items, 'topScore', -Infinity)).toEqual({ wrongHighOrMedium: 2, rightLow: 1 });
    expect(demote(items, 'topScore', 0.5)).toEqual({ wrongHighOrMedium: 1, rightLow: 1 });
    expect(demote(items, 'topScore', 0.95)).toEqual({ wrongHighOrMedium: 0, rightLow: 2 });
  });

  it('picks the threshold that leaves fewest wrong answers within a tenth of the right ones low', () => {
    // ten right answers: one may be demoted; the wrong ones score 0.3 and 0.45, a right one 0.4
    const right = [0.4, ...Array.from({ length: 9 }, (_, i) => 0.5 + i / 20)].map((s) =>
      item(true, s),
    );
    const items = [...right, item(false, 0.3), item(false, 0.45)];
    const threshold = bestThreshold(items, 'topScore');
    // up to 0.45 demotes both wrong answers for one right one (0.4): within the budget of one
    expect(demote(items, 'topScore', threshold)).toEqual({ wrongHighOrMedium: 0, rightLow: 1 });
  });
});
