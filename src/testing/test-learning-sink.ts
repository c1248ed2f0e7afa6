import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FeedbackRecord } from '../ports/chat-records.js';
import type { BeginTrajectory, LearningSink, RecordStep } from '../ports/learning-sink.js';
import { ulid } from '../util/ids.js';
import {
  abortedSignal,
  expectErrorCode,
  titled,
  uniqueName,
  type SkipReasons,
  type SuiteOptions,
} from './shared.js';

/** Parts of the `LearningSink` contract an adapter may lack (see {@link SkipReasons}). */
export type LearningSinkCapability = 'validation' | 'abort';

/** Options of {@link testLearningSink}. */
export interface LearningSinkSuiteOptions extends SuiteOptions<LearningSink> {
  /** Capabilities the adapter lacks, with the reason printed in the skipped tests' titles. */
  readonly skip?: SkipReasons<LearningSinkCapability> | undefined;
}

/**
 * Registers a `describe` block checking a `LearningSink` against the port contract:
 * trajectories begin active and empty, steps are numbered 1, 2, … per trajectory,
 * `stepCount` and `totalReward` follow the steps, ending is idempotent, unknown
 * trajectories are rejected with `not_found`, rewards outside [-1, 1] with
 * `validation_error`, and aborted calls with `aborted`. Feedback gives the step of its
 * message its reward (adjusting `totalReward`), the latest feedback per message wins,
 * `listFeedback` reads by message or session oldest first, and `findPatterns` ranks ended
 * trajectories by shared query terms × quality; `deleteSession` removes a session's
 * trajectories, steps and feedback and nothing of other sessions. The sink is used alone: no session or
 * message rows exist for the ids it receives.
 */
export function testLearningSink(options: LearningSinkSuiteOptions): void {
  const skip = options.skip ?? {};

  describe(options.title ?? 'LearningSink conformance', () => {
    let sink: LearningSink;
    let begin: BeginTrajectory;

    beforeEach(async () => {
      sink = await options.create();
      begin = {
        sessionId: ulid(),
        userId: uniqueName('user'),
        initialQuery: 'What is the refund policy?',
        route: 'retrieval',
        startedAt: '2024-03-01T12:00:00.000Z',
      };
    });

    afterEach(async () => {
      await options.destroy?.(sink);
    });

    const step = (trajectoryId: string, reward: number, minute = 1): RecordStep => ({
      trajectoryId,
      messageId: ulid(),
      query: `query ${minute}`,
      chunkIds: ['handbook#1', 'handbook#4'],
      reward,
      createdAt: `2024-03-01T12:${String(minute).padStart(2, '0')}:00.000Z`,
    });

    const feedbackOn = (
      messageId: string,
      overrides: Partial<FeedbackRecord> = {},
      minute = 30,
    ): FeedbackRecord => ({
      id: ulid(),
      messageId,
      sessionId: begin.sessionId,
      userId: begin.userId,
      rating: 'bad',
      sourceHelpfulness: null,
      comment: null,
      markedAsFactual: null,
      correctedContent: null,
      reward: -0.5,
      createdAt: `2024-03-01T12:${String(minute).padStart(2, '0')}:00.000Z`,
      ...overrides,
    });

    const ended = async (initialQuery: string, quality: number, active = false) => {
      const id = await sink.beginTrajectory({ ...begin, sessionId: ulid(), initialQuery });
      if (!active) {
        await sink.endTrajectory(id, {
          status: quality > 0.8 ? 'abandoned' : 'completed',
          quality,
          endedAt: '2024-03-01T13:00:00.000Z',
        });
      }
      return (await sink.getTrajectory(id))!;
    };

    it('declares its name and specification version', () => {
      expect(typeof sink.name).toBe('string');
      expect(sink.name.length).toBeGreaterThan(0);
      expect(sink.specificationVersion).toBe('v1');
    });

    it('begins an active, empty trajectory with a new id', async () => {
      const id = await sink.beginTrajectory(begin);
      const other = await sink.beginTrajectory(begin);
      expect(typeof id).toBe('string');
      expect(id).not.toBe(other);
      expect(await sink.getTrajectory(id)).toEqual({
        ...begin,
        id,
        status: 'active',
        endedAt: null,
        stepCount: 0,
        totalReward: 0,
        finalQuality: null,
      });
      expect(await sink.listSteps(id)).toEqual([]);
    });

    it('gives null and no steps for an unknown trajectory', async () => {
      expect(await sink.getTrajectory(ulid())).toBeNull();
      expect(await sink.listSteps(ulid())).toEqual([]);
    });

    it('numbers steps 1, 2, … and keeps stepCount and totalReward in step', async () => {
      const id = await sink.beginTrajectory(begin);
      const first = step(id, 0.5, 1);
      const recorded = await sink.recordStep(first);
      expect(recorded).toEqual({ ...first, id: recorded.id, stepNumber: 1 });
      expect(typeof recorded.id).toBe('string');
      await sink.recordStep(step(id, -0.25, 2));
      const third = await sink.recordStep(step(id, 1, 3));
      expect(third.stepNumber).toBe(3);

      const trajectory = await sink.getTrajectory(id);
      expect(trajectory?.stepCount).toBe(3);
      expect(trajectory?.totalReward).toBeCloseTo(1.25, 10);
      const steps = await sink.listSteps(id);
      expect(steps.map((item) => item.stepNumber)).toEqual([1, 2, 3]);
      expect(steps.map((item) => item.reward)).toEqual([0.5, -0.25, 1]);
      expect(steps[0]).toEqual(recorded);
      expect(new Set(steps.map((item) => item.id)).size).toBe(3);
    });

    it('numbers the steps of each trajectory separately', async () => {
      const a = await sink.beginTrajectory(begin);
      const b = await sink.beginTrajectory({ ...begin, sessionId: ulid() });
      await sink.recordStep(step(a, 0.1));
      await sink.recordStep(step(a, 0.1));
      const firstOfB = await sink.recordStep(step(b, 0.1));
      expect(firstOfB.stepNumber).toBe(1);
      expect((await sink.listSteps(a)).map((item) => item.trajectoryId)).toEqual([a, a]);
      expect((await sink.getTrajectory(b))?.stepCount).toBe(1);
    });

    it("rejects a step for an unknown trajectory with code 'not_found'", async () => {
      await expectErrorCode(
        () => sink.recordStep(step(ulid(), 0.5)),
        'not_found',
        'recordStep for an unknown trajectory',
      );
    });

    it('ends a trajectory once; ending it again changes nothing', async () => {
      const id = await sink.beginTrajectory(begin);
      await sink.recordStep(step(id, 0.5));
      await sink.endTrajectory(id, {
        status: 'completed',
        quality: 0.75,
        endedAt: '2024-03-01T13:00:00.000Z',
      });
      const ended = await sink.getTrajectory(id);
      expect(ended).toMatchObject({
        status: 'completed',
        finalQuality: 0.75,
        endedAt: '2024-03-01T13:00:00.000Z',
        stepCount: 1,
        totalReward: 0.5,
      });
      await sink.endTrajectory(id, {
        status: 'abandoned',
        quality: 0.25,
        endedAt: '2024-03-01T14:00:00.000Z',
      });
      expect(await sink.getTrajectory(id)).toEqual(ended);
    });

    it("rejects ending an unknown trajectory with code 'not_found'", async () => {
      await expectErrorCode(
        () =>
          sink.endTrajectory(ulid(), {
            status: 'completed',
            quality: 1,
            endedAt: '2024-03-01T13:00:00.000Z',
          }),
        'not_found',
        'endTrajectory of an unknown trajectory',
      );
    });

    it.skipIf(skip.validation)(
      titled('rejects a reward outside [-1, 1] with a validation error', skip.validation),
      async () => {
        const id = await sink.beginTrajectory(begin);
        for (const reward of [1.5, -1.01, Number.NaN]) {
          await expectErrorCode(
            () => sink.recordStep(step(id, reward)),
            'validation_error',
            `recordStep with reward ${reward}`,
          );
        }
        expect(await sink.listSteps(id)).toEqual([]);
        expect((await sink.getTrajectory(id))?.stepCount).toBe(0);
        await sink.recordStep(step(id, -1));
        await sink.recordStep(step(id, 1));
        expect((await sink.getTrajectory(id))?.stepCount).toBe(2);
      },
    );

    it("gives the feedback's reward to its message's step and adjusts totalReward", async () => {
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

    it('finds ended trajectories sharing query terms, ranked by share × quality', async () => {
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

    it("deleteSession removes the session's trajectories, steps and feedback, nothing else", async () => {
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
      expect(await sink.listFeedback({ sessionId: otherSession.sessionId })).toEqual([
        keptFeedback,
      ]);
      // Deleting again, or an unknown session, removes nothing.
      expect(await sink.deleteSession(begin.sessionId)).toBe(0);
      expect(await sink.deleteSession(ulid())).toBe(0);
    });

    it.skipIf(skip.validation)(
      titled(
        'rejects invalid feedback with a validation error and stores nothing',
        skip.validation,
      ),
      async () => {
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
  });
}
