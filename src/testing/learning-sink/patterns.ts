/**
 * Conformance cases of `LearningSink.findPatterns`: ended trajectories ranked by shared query
 * terms × quality, optionally of one user only.
 */
import { expect, it } from '../runner.js';
import { ulid } from '../../util/ids.js';
import type { LearningSinkCaseContext } from './context.js';

/** Registers the `findPatterns` cases. */
export function patternCases(context: LearningSinkCaseContext): void {
  const { ended } = context;
  it('finds ended trajectories sharing query terms, ranked by share × quality', async () => {
    const { sink } = context;
    // Terms no other test uses, so trajectories of other tests never match.
    const [x, y] = [`x${ulid().toLowerCase()}`, `y${ulid().toLowerCase()}`];
    const both = await ended(`The ${x} and ${y} policy`, 0.6); // 1 × 0.6
    const half = await ended(`Only ${x}`, 1); // 0.5 × 1
    const best = await ended(`${y}, ${x}?`, 0.9); // 1 × 0.9
    await ended(`${x} ${y}`, 1, true); // active: ignored
    await ended(`${x} ${y}`, 0); // quality 0: ignored
    await ended('Something else entirely', 1);

    expect(await sink.findPatterns(`What about ${x} ${y}?`, 10)).toEqual([best, both, half]);
    expect(await sink.findPatterns(`${x} ${y}`, 2)).toEqual([best, both]);
    expect(await sink.findPatterns(`z${ulid().toLowerCase()}`, 10)).toEqual([]);
  });

  it("findPatterns with a userId ranks only that user's trajectories", async () => {
    const { sink, begin } = context;
    const [x, y] = [`x${ulid().toLowerCase()}`, `y${ulid().toLowerCase()}`];
    const mine = await ended(`The ${x} policy`, 0.6);
    const other = `other-${ulid()}`;
    const id = await sink.beginTrajectory({
      ...begin,
      userId: other,
      sessionId: ulid(),
      initialQuery: `${x} ${y}`,
    });
    await sink.endTrajectory(id, { status: 'completed', quality: 1, endedAt: begin.startedAt });
    const theirs = (await sink.getTrajectory(id))!;
    expect(await sink.findPatterns(`${x} ${y}`, 10)).toEqual([theirs, mine]);
    expect(await sink.findPatterns(`${x} ${y}`, 10, { userId: begin.userId })).toEqual([mine]);
    expect(await sink.findPatterns(`${x} ${y}`, 10, { userId: other })).toEqual([theirs]);
    expect(await sink.findPatterns(`${x} ${y}`, 10, { userId: `nobody-${ulid()}` })).toEqual([]);
  });
}
