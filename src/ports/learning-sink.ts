import type { CallOptions } from './common.js';
import type { FeedbackRecord, TrajectoryRecord, TrajectoryStep } from './chat-records.js';

/** What starting a trajectory needs. */
export interface BeginTrajectory {
  /** The session it follows. */
  readonly sessionId: string;
  /** The session owner. */
  readonly userId: string;
  /** The first query. */
  readonly initialQuery: string;
  /** Route of the first turn. */
  readonly route: string;
  /** ISO-8601 UTC. */
  readonly startedAt: string;
}

/** What recording a step needs; the sink numbers it. */
export type RecordStep = Omit<TrajectoryStep, 'id' | 'stepNumber'>;

/** Which feedback `listFeedback` returns. */
export type FeedbackQuery =
  | { readonly messageId: string }
  | { readonly sessionId: string }
  | {
      /** ISO-8601 UTC: feedback created at or after it. */
      readonly since: string;
    };

/** How a trajectory ends. */
export interface EndTrajectory {
  /** `completed` (session ended) or `abandoned` (idle). */
  readonly status: 'completed' | 'abandoned';
  /** Session quality in [0, 1]. */
  readonly quality: number;
  /** ISO-8601 UTC. */
  readonly endedAt: string;
}

/** Records learning trajectories: a step per turn, rewards, and how sessions ended. */
export interface LearningSink {
  /** Adapter name, for events and errors. */
  readonly name: string;
  /** Port contract version this adapter implements. */
  readonly specificationVersion: 'v1';
  /** Starts a trajectory and returns its id. */
  beginTrajectory(input: BeginTrajectory, options?: CallOptions): Promise<string>;
  /** Appends a step, numbered 1, 2, … per trajectory; rejects an unknown trajectory. */
  recordStep(step: RecordStep, options?: CallOptions): Promise<TrajectoryStep>;
  /** Ends a trajectory; ending an ended one is a no-op. */
  endTrajectory(id: string, end: EndTrajectory, options?: CallOptions): Promise<void>;
  /** A trajectory by id, or null. */
  getTrajectory(id: string, options?: CallOptions): Promise<TrajectoryRecord | null>;
  /** A trajectory's steps in order. */
  listSteps(trajectoryId: string, options?: CallOptions): Promise<TrajectoryStep[]>;
  /**
   * Stores feedback on a message and makes its reward the reward of the trajectory step of that
   * message (adjusting the trajectory's `totalReward`). Feedback on a message already rated
   * replaces the earlier one (same `messageId`: latest wins).
   */
  recordFeedback(feedback: FeedbackRecord, options?: CallOptions): Promise<void>;
  /**
   * Feedback of one message, of a whole session, or all feedback created at or after `since`
   * (at most `FEEDBACK_PAGE_LIMIT`, 10,000), oldest first.
   */
  listFeedback(query: FeedbackQuery, options?: CallOptions): Promise<FeedbackRecord[]>;
  /**
   * Past trajectories like a query: ended ones whose initial query shares the most content
   * terms with it, weighted by their quality, best first; with `options.userId`, only that
   * user's (a trajectory holds its user's first question).
   */
  findPatterns(
    query: string,
    k: number,
    options?: FindPatternsCallOptions,
  ): Promise<TrajectoryRecord[]>;
  /**
   * Deletes everything recorded for a session: its trajectories, their steps and its feedback
   * (the engine calls it when the session is deleted or evicted). Returns how many
   * trajectories and feedback records were removed; an unknown session removes nothing.
   */
  deleteSession(sessionId: string, options?: CallOptions): Promise<number>;
  /**
   * Optional: deletes everything recorded for a user, whatever the session: their
   * trajectories, the steps of those, and their feedback (comments and corrections included).
   * Returns what was removed; an unknown user removes nothing.
   */
  deleteUser?(userId: string, options?: CallOptions): Promise<UserLearningDeletion>;
}

/** What `LearningSink.deleteUser` removed. */
export interface UserLearningDeletion {
  /** Trajectories removed (their steps with them). */
  readonly trajectories: number;
  /** Feedback records removed. */
  readonly feedback: number;
}

/** Options of `LearningSink.findPatterns`. */
export interface FindPatternsCallOptions extends CallOptions {
  /** Only this user's trajectories. */
  readonly userId?: string | undefined;
}
