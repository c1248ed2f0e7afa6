/**
 * Conformance cases of `LearningSink` feedback: it gives the step of its message its reward
 * (adjusting `totalReward`), the latest feedback per message wins, and `listFeedback` reads
 * by message, by session or since a time, oldest first.
 */
import { expect, it } from '../runner.js';
import type { FeedbackRecord } from '../../ports/chat-records.js';
import { ulid } from '../../util/ids.js';
import type { LearningSinkCaseContext } from './context.js';

/** Registers the feedback cases. */
export function feedbackCases(context: LearningSinkCaseContext): void {
  const { step, feedbackOn } = context;
  it("gives the feedback's reward to its message's step and adjusts totalReward", async () => {
    const { sink, begin } = context;
    const id = await sink.beginTrajectory(begin);
    const rated = await sink.recordStep(step(id, 0.5, 1));
    const other = await sink.recordStep(step(id, 0.25, 2));
    const feedback = feedbackOn(rated.messageId, {
      rating: 'good',
      sourceHelpfulness: { S1: 1, S2: 0.5 },
      comment: 'Spot on.',
      markedAsFactual: true,
      reward: 0.925,
    });
    await sink.recordFeedback(feedback);

    expect(await sink.listFeedback({ messageId: rated.messageId })).toEqual([feedback]);
    expect(await sink.listSteps(id)).toEqual([{ ...rated, reward: 0.925 }, other]);
    const trajectory = await sink.getTrajectory(id);
    expect(trajectory?.stepCount).toBe(2);
    expect(trajectory?.totalReward).toBeCloseTo(1.175, 10);
  });

  it('replaces earlier feedback on a message: the latest wins', async () => {
    const { sink, begin } = context;
    const id = await sink.beginTrajectory(begin);
    const rated = await sink.recordStep(step(id, 0.5, 1));
    await sink.recordStep(step(id, 0.25, 2));
    await sink.recordFeedback(feedbackOn(rated.messageId, { rating: 'good', reward: 1 }, 30));
    expect((await sink.getTrajectory(id))?.totalReward).toBeCloseTo(1.25, 10);

    const second = feedbackOn(
      rated.messageId,
      {
        rating: 'bad',
        markedAsFactual: false,
        correctedContent: 'Refunds take 30 days.',
        reward: -0.5,
      },
      31,
    );
    await sink.recordFeedback(second);
    expect(await sink.listFeedback({ messageId: rated.messageId })).toEqual([second]);
    expect(await sink.listFeedback({ sessionId: begin.sessionId })).toEqual([second]);
    expect((await sink.listSteps(id))[0]?.reward).toBe(-0.5);
    expect((await sink.getTrajectory(id))?.totalReward).toBeCloseTo(-0.25, 10);
  });

  it('lists feedback by message and by session, oldest first', async () => {
    const { sink, begin } = context;
    // Messages without steps: feedback is stored all the same.
    const [first, second, elsewhere] = [ulid(), ulid(), ulid()];
    const a = feedbackOn(first, { rating: 'neutral', reward: 0.5 }, 10);
    const b = feedbackOn(second, { comment: 'Wrong.', sourceHelpfulness: {} }, 11);
    const c = feedbackOn(elsewhere, { sessionId: ulid() }, 12);
    await sink.recordFeedback(a);
    await sink.recordFeedback(c);
    await sink.recordFeedback(b);

    expect(await sink.listFeedback({ sessionId: begin.sessionId })).toEqual([a, b]);
    expect(await sink.listFeedback({ sessionId: c.sessionId })).toEqual([c]);
    expect(await sink.listFeedback({ messageId: second })).toEqual([b]);
    expect(await sink.listFeedback({ messageId: ulid() })).toEqual([]);
    expect(await sink.listFeedback({ sessionId: ulid() })).toEqual([]);
  });

  it('lists all feedback since a time, oldest first', async () => {
    const { sink } = context;
    // Far in the future, so feedback of other tests (and other runs) is never included.
    const future = (minute: number): FeedbackRecord => ({
      ...feedbackOn(ulid(), { sessionId: ulid() }),
      createdAt: `2999-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`,
    });
    const [early, middle, late] = [future(1), future(2), future(3)];
    await sink.recordFeedback(late);
    await sink.recordFeedback(early);
    await sink.recordFeedback(middle);
    // A persistent store may hold such records from earlier runs: look at this test's only.
    const mine = new Set([early.id, middle.id, late.id]);
    const since = await sink.listFeedback({ since: middle.createdAt });
    expect(since.filter((record) => mine.has(record.id))).toEqual([middle, late]);
    expect(since.every((record) => record.createdAt >= middle.createdAt)).toBe(true);
  });
}
