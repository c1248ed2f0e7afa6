/**
 * The context the `LearningSink` conformance cases share: the sink and trajectory start of the
 * running test, and the record helpers bound to them.
 */
import type { FeedbackRecord, TrajectoryRecord } from '../../ports/chat-records.js';
import type { BeginTrajectory, LearningSink, RecordStep } from '../../ports/learning-sink.js';

/**
 * What every group of cases shares. `sink` and `begin` are the running test's: read them in a
 * test, never while registering.
 */
export interface LearningSinkCaseContext {
  /** The sink under test. */
  readonly sink: LearningSink;
  /** The start of a trajectory of a fresh session and user. */
  readonly begin: BeginTrajectory;
  /** A step of `trajectoryId` with `reward`, at minute `minute` of the base hour. */
  readonly step: (trajectoryId: string, reward: number, minute?: number) => RecordStep;
  /** Feedback on `messageId` in the session of `begin`, at minute `minute` of the base hour. */
  readonly feedbackOn: (
    messageId: string,
    overrides?: Partial<FeedbackRecord>,
    minute?: number,
  ) => FeedbackRecord;
  /** A trajectory of a new session with `initialQuery`, ended with `quality` unless `active`. */
  readonly ended: (
    initialQuery: string,
    quality: number,
    active?: boolean,
  ) => Promise<TrajectoryRecord>;
}
