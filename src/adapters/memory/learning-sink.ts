import { NotFoundError, throwIfAborted } from '../../errors/index.js';
import type { CallOptions } from '../../ports/common.js';
import type { FeedbackRecord, TrajectoryRecord, TrajectoryStep } from '../../ports/chat-records.js';
import {
  FEEDBACK_PAGE_LIMIT,
  newTrajectory,
  rankPatterns,
  validateFeedbackRecord,
} from '../../learning/feedback.js';
import type {
  BeginTrajectory,
  EndTrajectory,
  LearningSink,
  RecordStep,
  FindPatternsCallOptions,
} from '../../ports/learning-sink.js';
import { ulid } from '../../util/ids.js';
import { invalid, requireInRange, requireString } from '../shared/validate.js';

/** Settings of {@link createMemoryLearningSink}. */
export interface MemoryLearningSinkSettings {
  /** Adapter name reported in events and errors (default `memory`). */
  readonly name?: string;
}

interface StoredTrajectory {
  record: TrajectoryRecord;
  readonly steps: TrajectoryStep[];
}

const END_STATUSES = new Set(['completed', 'abandoned']);

/**
 * An in-memory `LearningSink`. Steps are numbered 1, 2, … per trajectory and the
 * trajectory's `stepCount` and `totalReward` change in the same write. Steps may still be
 * recorded after a trajectory ended (a user may come back to an abandoned session); ending
 * an ended trajectory keeps its first end. Records are frozen, so callers cannot change
 * stored state. It holds what it is given until `deleteSession` removes a session's records
 * (the engine calls it for deleted and evicted sessions, so with a bounded session store the
 * sink stays bounded too).
 */
export function createMemoryLearningSink(settings: MemoryLearningSinkSettings = {}): LearningSink {
  const trajectories = new Map<string, StoredTrajectory>();
  // Latest feedback per message, in insertion order.
  const feedback = new Map<string, FeedbackRecord>();

  function find(id: string): StoredTrajectory {
    const stored = trajectories.get(id);
    if (!stored) throw new NotFoundError('trajectory', id);
    return stored;
  }

  return {
    name: settings.name ?? 'memory',
    specificationVersion: 'v1',

    async beginTrajectory(input: BeginTrajectory, options?: CallOptions) {
      throwIfAborted(options?.signal);
      if (typeof input !== 'object' || input === null) throw invalid('input', 'must be an object');
      requireString(input.sessionId, 'sessionId');
      requireString(input.userId, 'userId');
      requireString(input.initialQuery, 'initialQuery', true);
      requireString(input.route, 'route', true);
      requireString(input.startedAt, 'startedAt');
      const record = Object.freeze(newTrajectory(input));
      trajectories.set(record.id, { record, steps: [] });
      return record.id;
    },

    async recordStep(step: RecordStep, options?: CallOptions) {
      throwIfAborted(options?.signal);
      if (typeof step !== 'object' || step === null) throw invalid('step', 'must be an object');
      const trajectoryId = requireString(step.trajectoryId, 'trajectoryId');
      const messageId = requireString(step.messageId, 'messageId');
      const query = requireString(step.query, 'query', true);
      const reward = requireInRange(step.reward, 'reward', -1, 1);
      const createdAt = requireString(step.createdAt, 'createdAt');
      if (!Array.isArray(step.chunkIds)) throw invalid('chunkIds', 'must be an array of strings');
      step.chunkIds.forEach((chunkId, index) => requireString(chunkId, `chunkIds.${index}`));
      const stored = find(trajectoryId);

      const recorded: TrajectoryStep = Object.freeze({
        id: ulid(),
        trajectoryId,
        stepNumber: stored.steps.length + 1,
        messageId,
        query,
        chunkIds: Object.freeze([...step.chunkIds]),
        reward,
        createdAt,
      });
      stored.steps.push(recorded);
      stored.record = Object.freeze({
        ...stored.record,
        stepCount: stored.steps.length,
        totalReward: stored.record.totalReward + reward,
      });
      return recorded;
    },

    async endTrajectory(id: string, end: EndTrajectory, options?: CallOptions) {
      throwIfAborted(options?.signal);
      if (typeof end !== 'object' || end === null) throw invalid('end', 'must be an object');
      if (!END_STATUSES.has(end.status)) {
        throw invalid('status', "must be 'completed' or 'abandoned'");
      }
      const quality = requireInRange(end.quality, 'quality', 0, 1);
      const endedAt = requireString(end.endedAt, 'endedAt');
      const stored = find(id);
      if (stored.record.status !== 'active') return;
      stored.record = Object.freeze({
        ...stored.record,
        status: end.status,
        finalQuality: quality,
        endedAt,
      });
    },

    async getTrajectory(id: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      return trajectories.get(id)?.record ?? null;
    },

    async listSteps(trajectoryId: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      return [...(trajectories.get(trajectoryId)?.steps ?? [])];
    },

    async recordFeedback(record: FeedbackRecord, options?: CallOptions) {
      throwIfAborted(options?.signal);
      validateFeedbackRecord(record);
      const copy = Object.freeze({
        ...record,
        sourceHelpfulness: record.sourceHelpfulness
          ? Object.freeze({ ...record.sourceHelpfulness })
          : null,
      });
      feedback.delete(record.messageId);
      feedback.set(record.messageId, copy);
      // The step of the rated message now carries the feedback's reward.
      for (const stored of trajectories.values()) {
        const index = stored.steps.findIndex((step) => step.messageId === record.messageId);
        if (index < 0) continue;
        const step = stored.steps[index]!;
        stored.steps[index] = Object.freeze({ ...step, reward: record.reward });
        stored.record = Object.freeze({
          ...stored.record,
          totalReward: stored.record.totalReward - step.reward + record.reward,
        });
      }
    },

    async listFeedback(query, options?: CallOptions) {
      throwIfAborted(options?.signal);
      const matches =
        'messageId' in query
          ? (record: FeedbackRecord) => record.messageId === query.messageId
          : 'since' in query
            ? (record: FeedbackRecord) => record.createdAt >= query.since
            : (record: FeedbackRecord) => record.sessionId === query.sessionId;
      return [...feedback.values()]
        .filter(matches)
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || (a.id < b.id ? -1 : 1))
        .slice(0, FEEDBACK_PAGE_LIMIT);
    },

    async deleteSession(sessionId: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(sessionId, 'sessionId');
      let removed = 0;
      for (const [id, stored] of trajectories) {
        if (stored.record.sessionId !== sessionId) continue;
        trajectories.delete(id);
        removed++;
      }
      for (const [messageId, record] of feedback) {
        if (record.sessionId !== sessionId) continue;
        feedback.delete(messageId);
        removed++;
      }
      return removed;
    },

    async deleteUser(userId: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(userId, 'userId');
      let removedTrajectories = 0;
      let removedFeedback = 0;
      for (const [id, stored] of trajectories) {
        if (stored.record.userId !== userId) continue;
        trajectories.delete(id);
        removedTrajectories++;
      }
      for (const [messageId, record] of feedback) {
        if (record.userId !== userId) continue;
        feedback.delete(messageId);
        removedFeedback++;
      }
      return { trajectories: removedTrajectories, feedback: removedFeedback };
    },

    async findPatterns(query: string, k: number, options?: FindPatternsCallOptions) {
      throwIfAborted(options?.signal);
      if (!Number.isInteger(k) || k < 1) throw invalid('k', 'must be a positive integer');
      const userId = options?.userId;
      return rankPatterns(
        query,
        k,
        [...trajectories.values()]
          .map((stored) => stored.record)
          .filter((record) => userId === undefined || record.userId === userId),
      );
    },
  };
}
