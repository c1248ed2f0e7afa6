/**
 * Conformance case of `LearningSink.deleteSession`: it removes a session's trajectories, steps
 * and feedback, and nothing of other sessions.
 */
import { expect, it } from '../runner.js';
import { ulid } from '../../util/ids.js';
import type { LearningSinkCaseContext } from './context.js';

/** Registers the `deleteSession` case. */
export function deletionCases(context: LearningSinkCaseContext): void {
  const { step, feedbackOn } = context;
  it("deleteSession removes the session's trajectories, steps and feedback, nothing else", async () => {
    const { sink, begin } = context;
    const first = await sink.beginTrajectory(begin);
    const second = await sink.beginTrajectory(begin);
    const rated = await sink.recordStep(step(first, 0.5, 1));
    await sink.recordStep(step(second, 0.25, 2));
    await sink.endTrajectory(first, {
      status: 'completed',
      quality: 1,
      endedAt: '2024-03-01T13:00:00.000Z',
    });
    await sink.recordFeedback(feedbackOn(rated.messageId));
    // Another session of the same user keeps everything.
    const otherSession = { ...begin, sessionId: ulid() };
    const kept = await sink.beginTrajectory(otherSession);
    const keptStep = await sink.recordStep(step(kept, 0.75, 3));
    const keptFeedback = feedbackOn(keptStep.messageId, { sessionId: otherSession.sessionId });
    await sink.recordFeedback(keptFeedback);

    expect(await sink.deleteSession(begin.sessionId)).toBe(3);
    for (const id of [first, second]) {
      expect(await sink.getTrajectory(id)).toBeNull();
      expect(await sink.listSteps(id)).toEqual([]);
    }
    expect(await sink.listFeedback({ sessionId: begin.sessionId })).toEqual([]);
    expect(await sink.listFeedback({ messageId: rated.messageId })).toEqual([]);
    const patterns = await sink.findPatterns(begin.initialQuery, 10);
    expect(patterns.map((trajectory) => trajectory.id)).not.toContain(first);
    expect(await sink.getTrajectory(kept)).toMatchObject({ stepCount: 1, totalReward: -0.5 });
    expect(await sink.listSteps(kept)).toHaveLength(1);
    expect(await sink.listFeedback({ sessionId: otherSession.sessionId })).toEqual([keptFeedback]);
    // Deleting again, or an unknown session, removes nothing.
    expect(await sink.deleteSession(begin.sessionId)).toBe(0);
    expect(await sink.deleteSession(ulid())).toBe(0);
  });
}
