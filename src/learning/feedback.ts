/**
 * Feedback and learning formulas (seed 000 §6), shared by the engine and every
 * `LearningSink`. Pure functions.
 */
import { ValidationError } from '../errors/index.js';
import type { FeedbackRecord, TrajectoryRecord } from '../ports/chat-records.js';
import type { BeginTrajectory } from '../ports/learning-sink.js';
import { ulid } from '../util/ids.js';
import { contentWords } from '../text/words.js';

/** What a reward is computed from. */
export interface FeedbackInput {
  /** The rating. */
  readonly rating: 'good' | 'neutral' | 'bad';
  /** Helpfulness per source, each in [0, 1]. */
  readonly sourceHelpfulness?: Readonly<Record<string, number>> | null | undefined;
  /** Whether the user judged the answer factual. */
  readonly markedAsFactual?: boolean | null | undefined;
  /** The user's correction. */
  readonly correctedContent?: string | null | undefined;
}

const RATING_REWARD = { good: 1, neutral: 0.5, bad: -0.5 } as const;

/** Most records one `listFeedback({ since })` call returns. */
export const FEEDBACK_PAGE_LIMIT = 10_000;

/**
 * Seed 000 `calculateFeedbackReward`: good 1, neutral 0.5, bad −0.5; with source
 * helpfulness, 0.7 × that + 0.3 × (mean helpfulness − 0.5); an answer marked not factual
 * with a correction is at most −0.3; clamped to [−1, 1]. An empty helpfulness map counts as
 * none (the seed divides by zero there).
 */
export function calculateFeedbackReward(feedback: FeedbackInput): number {
  let reward: number = RATING_REWARD[feedback.rating];
  const helpfulness = Object.values(feedback.sourceHelpfulness ?? {});
  if (helpfulness.length > 0) {
    const mean = helpfulness.reduce((sum, value) => sum + value, 0) / helpfulness.length;
    reward = reward * 0.7 + (mean - 0.5) * 0.3;
  }
  if (feedback.markedAsFactual === false && feedback.correctedContent) {
    reward = Math.min(reward, -0.3);
  }
  return Math.max(-1, Math.min(1, reward));
}

function invalid(path: string, message: string): ValidationError {
  return new ValidationError(`Invalid feedback: ${path}: ${message}`, [{ path, message }]);
}

/** Checks a feedback record before a sink stores it; throws `ValidationError` naming the field. */
export function validateFeedbackRecord(feedback: FeedbackRecord): void {
  if (typeof feedback !== 'object' || feedback === null)
    throw invalid('feedback', 'must be an object');
  for (const key of ['id', 'messageId', 'sessionId', 'userId', 'createdAt'] as const) {
    if (typeof feedback[key] !== 'string' || feedback[key].length === 0) {
      throw invalid(key, 'must be a non-empty string');
    }
  }
  if (!(feedback.rating in RATING_REWARD))
    throw invalid('rating', "must be 'good', 'neutral' or 'bad'");
  if (!(typeof feedback.reward === 'number' && feedback.reward >= -1 && feedback.reward <= 1)) {
    throw invalid('reward', 'must be in [-1, 1]');
  }
  for (const [label, value] of Object.entries(feedback.sourceHelpfulness ?? {})) {
    if (!(typeof value === 'number' && value >= 0 && value <= 1)) {
      throw invalid(`sourceHelpfulness.${label}`, 'must be in [0, 1]');
    }
  }
}

/**
 * How well a past trajectory fits a query, for `findPatterns`: the share of the query's
 * content terms in its initial query, times its quality. 0 for active trajectories.
 */
export function patternScore(query: string, trajectory: TrajectoryRecord): number {
  if (trajectory.status === 'active' || trajectory.finalQuality === null) return 0;
  const wanted = new Set(contentWords(query));
  if (wanted.size === 0) return 0;
  const have = new Set(contentWords(trajectory.initialQuery));
  let shared = 0;
  for (const term of wanted) if (have.has(term)) shared++;
  return (shared / wanted.size) * trajectory.finalQuality;
}

/** The `k` best patterns for a query among trajectories. */
export function rankPatterns(
  query: string,
  k: number,
  trajectories: Iterable<TrajectoryRecord>,
): TrajectoryRecord[] {
  return [...trajectories]
    .map((trajectory) => ({ trajectory, score: patternScore(query, trajectory) }))
    .filter(({ score }) => score > 0)
    .sort((a, b) => b.score - a.score || (a.trajectory.id < b.trajectory.id ? -1 : 1))
    .slice(0, k)
    .map(({ trajectory }) => trajectory);
}

/** The record of a trajectory just begun: active, no steps, a new id. */
export function newTrajectory(input: BeginTrajectory): TrajectoryRecord {
  return {
    id: ulid(),
    sessionId: input.sessionId,
    userId: input.userId,
    initialQuery: input.initialQuery,
    route: input.route,
    status: 'active',
    startedAt: input.startedAt,
    endedAt: null,
    stepCount: 0,
    totalReward: 0,
    finalQuality: null,
  };
}
