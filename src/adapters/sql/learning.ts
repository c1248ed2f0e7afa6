import type { FeedbackQuery } from '../../ports/learning-sink.js';
/** Input checks of the `LearningSink` shared by the SQL stores (same rules as in memory). */
import type { BeginTrajectory, EndTrajectory, RecordStep } from '../../ports/learning-sink.js';
import { invalid, requireInRange, requireString } from '../shared/validate.js';

const END_STATUSES = new Set(['completed', 'abandoned']);

/** Checks `beginTrajectory` input. */
export function validateBegin(input: BeginTrajectory): void {
  if (typeof input !== 'object' || input === null) throw invalid('input', 'must be an object');
  requireString(input.sessionId, 'sessionId');
  requireString(input.userId, 'userId');
  requireString(input.initialQuery, 'initialQuery', true);
  requireString(input.route, 'route', true);
  requireString(input.startedAt, 'startedAt');
}

/** Checks `recordStep` input. */
export function validateStep(step: RecordStep): void {
  if (typeof step !== 'object' || step === null) throw invalid('step', 'must be an object');
  requireString(step.trajectoryId, 'trajectoryId');
  requireString(step.messageId, 'messageId');
  requireString(step.query, 'query', true);
  requireInRange(step.reward, 'reward', -1, 1);
  requireString(step.createdAt, 'createdAt');
  if (!Array.isArray(step.chunkIds)) throw invalid('chunkIds', 'must be an array of strings');
  step.chunkIds.forEach((chunkId, index) => requireString(chunkId, `chunkIds.${index}`));
}

/** Checks `endTrajectory` input. */
export function validateEnd(end: EndTrajectory): void {
  if (typeof end !== 'object' || end === null) throw invalid('end', 'must be an object');
  if (!END_STATUSES.has(end.status)) {
    throw invalid('status', "must be 'completed' or 'abandoned'");
  }
  requireInRange(end.quality, 'quality', 0, 1);
  requireString(end.endedAt, 'endedAt');
}

/** Checks `findPatterns`' `k`. */
export function validatePatternCount(k: number): void {
  if (!Number.isInteger(k) || k < 1) throw invalid('k', 'must be a positive integer');
}

/** Checks `listFeedback`'s query: exactly a message id or a session id. */
export function validateFeedbackQuery(query: FeedbackQuery): {
  column: 'message_id' | 'session_id' | 'created_at';
  value: string;
} {
  if (typeof query !== 'object' || query === null) throw invalid('query', 'must be an object');
  if ('messageId' in query) {
    return { column: 'message_id', value: requireString(query.messageId, 'messageId') };
  }
  if ('since' in query) return { column: 'created_at', value: requireString(query.since, 'since') };
  return { column: 'session_id', value: requireString(query.sessionId, 'sessionId') };
}
