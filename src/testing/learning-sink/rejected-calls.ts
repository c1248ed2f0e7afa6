/**
 * Conformance cases of the calls a `LearningSink` rejects: invalid feedback, session ids and
 * `k` with `validation_error` (storing nothing), and calls with an aborted signal with
 * `aborted`.
 */
import { expect, it } from '../runner.js';
import type { FeedbackRecord } from '../../ports/chat-records.js';
import { ulid } from '../../util/ids.js';
import { abortedSignal, expectErrorCode, titled, type SkipReasons } from '../shared.js';
import type { LearningSinkCaseContext } from './context.js';

/** Registers the cases of rejected calls. */
export function rejectedCallCases(
  context: LearningSinkCaseContext,
  skip: SkipReasons<'validation' | 'abort'>,
): void {
  const { step, feedbackOn } = context;
  it.skipIf(skip.validation)(
    titled('rejects invalid feedback with a validation error and stores nothing', skip.validation),
    async () => {
      const { sink, begin } = context;
      const id = await sink.beginTrajectory(begin);
      const rated = await sink.recordStep(step(id, 0.5));
      const bad: Array<[string, FeedbackRecord]> = [
        ['reward 1.5', feedbackOn(rated.messageId, { reward: 1.5 })],
        ['reward NaN', feedbackOn(rated.messageId, { reward: Number.NaN })],
        [
          "rating 'great'",
          feedbackOn(rated.messageId, { rating: 'great' as FeedbackRecord['rating'] }),
        ],
        ['helpfulness 2', feedbackOn(rated.messageId, { sourceHelpfulness: { S1: 2 } })],
        ['empty messageId', feedbackOn('')],
        ['empty sessionId', feedbackOn(rated.messageId, { sessionId: '' })],
      ];
      for (const [name, feedback] of bad) {
        await expectErrorCode(
          () => sink.recordFeedback(feedback),
          'validation_error',
          `recordFeedback with ${name}`,
        );
      }
      expect(await sink.listFeedback({ messageId: rated.messageId })).toEqual([]);
      expect(await sink.listFeedback({ sessionId: begin.sessionId })).toEqual([]);
      expect(await sink.listSteps(id)).toEqual([rated]);
      expect((await sink.getTrajectory(id))?.totalReward).toBe(0.5);
      await expectErrorCode(
        () => sink.deleteSession(''),
        'validation_error',
        'deleteSession with an empty session id',
      );
      for (const k of [0, -1, 1.5]) {
        await expectErrorCode(
          () => sink.findPatterns('refund policy', k),
          'validation_error',
          `findPatterns with k ${k}`,
        );
      }
    },
  );

  it.skipIf(skip.abort)(
    titled("rejects calls with an aborted signal with code 'aborted'", skip.abort),
    async () => {
      const { sink, begin } = context;
      const signal = abortedSignal();
      const id = await sink.beginTrajectory(begin);
      const messageId = ulid();
      const end = {
        status: 'completed',
        quality: 1,
        endedAt: '2024-03-01T13:00:00.000Z',
      } as const;
      const calls: Array<[string, () => Promise<unknown>]> = [
        ['beginTrajectory', () => sink.beginTrajectory(begin, { signal })],
        ['recordStep', () => sink.recordStep(step(id, 0.5), { signal })],
        ['endTrajectory', () => sink.endTrajectory(id, end, { signal })],
        ['getTrajectory', () => sink.getTrajectory(id, { signal })],
        ['listSteps', () => sink.listSteps(id, { signal })],
        ['recordFeedback', () => sink.recordFeedback(feedbackOn(messageId), { signal })],
        ['listFeedback', () => sink.listFeedback({ messageId }, { signal })],
        ['findPatterns', () => sink.findPatterns('refund policy', 3, { signal })],
        ['deleteSession', () => sink.deleteSession(begin.sessionId, { signal })],
      ];
      for (const [name, call] of calls) await expectErrorCode(call, 'aborted', name);
      expect(await sink.getTrajectory(id)).toMatchObject({ status: 'active', stepCount: 0 });
      expect(await sink.listFeedback({ messageId })).toEqual([]);
    },
  );
}
