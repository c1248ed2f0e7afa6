/**
 * `forgetUser` erases one user's feedback events from the learned boost (issue 28, item 4):
 * their boost is gone, other users' events stay, and a bad `userId` on an event is refused.
 */
import { describe, expect, it } from 'vitest';
import { createLearnedBoost } from '../../src/learning/learned-boost.js';

const query = Float32Array.from([1, 0, 0]);

describe('learned boost forgetUser', () => {
  it("removes the user's events and keeps everyone else's", () => {
    const learned = createLearnedBoost();
    learned.record({ queryVector: query, chunkId: 'a#0', signal: 1, userId: 'alice' });
    learned.record({ queryVector: query, chunkId: 'a#0', signal: 1, userId: 'alice' });
    learned.record({ queryVector: query, chunkId: 'b#0', signal: 1, userId: 'bob' });
    learned.record({ queryVector: query, chunkId: 'c#0', signal: 1 });
    expect(learned.boost('a#0', query)).toBeGreaterThan(1);

    expect(learned.forgetUser('alice')).toBe(2);
    expect(learned.boost('a#0', query)).toBe(1);
    expect(learned.boost('b#0', query)).toBeGreaterThan(1);
    expect(learned.boost('c#0', query)).toBeGreaterThan(1);
    expect(learned.size).toBe(2);
    expect(learned.forgetUser('alice')).toBe(0);
  });

  it('refuses a userId that is not a string', () => {
    const learned = createLearnedBoost();
    expect(() =>
      learned.record({ queryVector: query, chunkId: 'a#0', signal: 1, userId: 42 as never }),
    ).toThrow(/userId/);
    expect(learned.size).toBe(0);
  });
});
