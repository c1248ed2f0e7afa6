/**
 * Conformance case of the optional `LearningSink.deleteUser`: it removes the user's
 * trajectories (with their steps) and feedback in every session, and nothing of other users.
 * A sink without it declares so (`skip.deleteUser`, the reason printed in the title).
 */
import { expect, it } from '../runner.js';
import { ulid } from '../../util/ids.js';
import { titled, uniqueName } from '../shared.js';
import type { LearningSinkCaseContext } from './context.js';

/** Registers the `deleteUser` case. */
export function deleteUserCases(
  context: LearningSinkCaseContext,
  skipReason: string | undefined,
): void {
  const { step, feedbackOn } = context;
  it.skipIf(skipReason)(
    titled(
      "deleteUser removes the user's trajectories, steps and feedback, nothing else",
      skipReason,
    ),
    async () => {
      const { sink, begin } = context;
      expect(typeof sink.deleteUser, 'deleteUser (declare skip.deleteUser if absent)').toBe(
        'function',
      );
      const deleteUser = (id: string) => sink.deleteUser!(id);
      const first = await sink.beginTrajectory(begin);
      const rated = await sink.recordStep(step(first, 0.5, 1));
      await sink.recordFeedback(feedbackOn(rated.messageId, { correctedContent: 'erase me' }));
      // A second session of the same user goes too.
      const secondSession = { ...begin, sessionId: ulid() };
      const second = await sink.beginTrajectory(secondSession);
      const secondStep = await sink.recordStep(step(second, 0.25, 2));
      await sink.recordFeedback(
        feedbackOn(secondStep.messageId, { sessionId: secondSession.sessionId }),
      );
      // Another user keeps everything.
      const otherBegin = { ...begin, sessionId: ulid(), userId: uniqueName('other-user') };
      const kept = await sink.beginTrajectory(otherBegin);
      const keptStep = await sink.recordStep(step(kept, 0.75, 3));
      const keptFeedback = feedbackOn(keptStep.messageId, {
        sessionId: otherBegin.sessionId,
        userId: otherBegin.userId,
      });
      await sink.recordFeedback(keptFeedback);

      expect(await deleteUser(begin.userId)).toEqual({ trajectories: 2, feedback: 2 });
      for (const id of [first, second]) {
        expect(await sink.getTrajectory(id)).toBeNull();
        expect(await sink.listSteps(id)).toEqual([]);
      }
      expect(await sink.listFeedback({ messageId: rated.messageId })).toEqual([]);
      expect(await sink.listFeedback({ sessionId: secondSession.sessionId })).toEqual([]);
      expect(await sink.getTrajectory(kept)).toMatchObject({ stepCount: 1 });
      expect(await sink.listSteps(kept)).toHaveLength(1);
      expect(await sink.listFeedback({ messageId: keptStep.messageId })).toEqual([keptFeedback]);
      expect(await deleteUser(begin.userId)).toEqual({ trajectories: 0, feedback: 0 });
      expect(await deleteUser(uniqueName('nobody'))).toEqual({ trajectories: 0, feedback: 0 });
    },
  );
}
