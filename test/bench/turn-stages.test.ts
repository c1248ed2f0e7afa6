import { describe, expect, it } from 'vitest';
import { stageTimes, type Profile } from '../../bench/turn-stages.js';

const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
  id,
  callFrame: { functionName, url },
  children,
});

describe('bench/turn-stages', () => {
  it('gives each sample to the innermost frame that names a stage', () => {
    const profile: Profile = {
      nodes: [
        frame(1, '(root)', '', [2, 6, 7]),
        frame(2, 'runTurn', 'file:///x/src/pipeline/turn.ts', [3, 5]),
        frame(3, 'judgeAnswer', 'file:///x/src/pipeline/judge.ts', [4]),
        frame(4, 'stem', 'file:///x/src/text/english.ts'),
        frame(5, 'query', 'file:///x/src/adapters/memory/vector-store.ts'),
        frame(6, '(garbage collector)', ''),
        frame(7, '(idle)', ''),
      ],
      // stem (in the judge) twice, the vector store once, the turn itself, GC, idle
      samples: [4, 4, 5, 2, 6, 7],
      timeDeltas: [1000, 1000, 2000, 500, 3000, 4000],
    };
    const times = stageTimes(profile);
    expect(times.get('judge')).toBe(2);
    expect(times.get('retrieval: vector store')).toBe(2);
    expect(times.get('rest of the turn')).toBe(0.5);
    expect(times.get('garbage collector')).toBe(3);
    expect(times.get('outside a turn (idle, bench)')).toBe(4);
  });
});
