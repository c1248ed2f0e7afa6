import { afterEach, beforeEach, describe, expect, it } from './runner.js';
import type { FeedbackRecord } from '../ports/chat-records.js';
import type { BeginTrajectory, LearningSink, RecordStep } from '../ports/learning-sink.js';
import { ulid } from '../util/ids.js';
import type { LearningSinkCaseContext } from './learning-sink/context.js';
import { deleteUserCases } from './learning-sink/delete-user.js';
import { deletionCases } from './learning-sink/deletion.js';
import { feedbackCases } from './learning-sink/feedback.js';
import { patternCases } from './learning-sink/patterns.js';
import { rejectedCallCases } from './learning-sink/rejected-calls.js';
import { trajectoryCases } from './learning-sink/trajectories.js';
import { uniqueName, type SkipReasons, type SuiteOptions } from './shared.js';

/** Parts of the `LearningSink` contract an adapter may lack (see {@link SkipReasons}). */
export type LearningSinkCapability = 'validation' | 'abort' | 'deleteUser';

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

    const context: LearningSinkCaseContext = {
      get sink() {
        return sink;
      },
      get begin() {
        return begin;
      },
      step,
      feedbackOn,
      ended,
    };

    it('declares its name and specification version', () => {
      expect(typeof sink.name).toBe('string');
      expect(sink.name.length).toBeGreaterThan(0);
      expect(sink.specificationVersion).toBe('v1');
    });

    trajectoryCases(context, skip);
    feedbackCases(context);
    patternCases(context);
    deletionCases(context);
    deleteUserCases(context, skip.deleteUser);
    rejectedCallCases(context, skip);
  });
}
