import { newTrajectory } from '../../learning/feedback.js';
import { FEEDBACK_PAGE_LIMIT } from '../../learning/feedback.js';
/**
 * `LearningSink` on SQLite: a step and its trajectory's totals change in one transaction; so
 * do a feedback row, the reward of its message's step and that trajectory's total.
 */
import { NotFoundError, throwIfAborted } from '../../errors/index.js';
import type { CallOptions } from '../../ports/common.js';
import type { FeedbackRecord, TrajectoryStep } from '../../ports/chat-records.js';
import { rankPatterns, validateFeedbackRecord } from '../../learning/feedback.js';
import type {
  BeginTrajectory,
  EndTrajectory,
  LearningSink,
  RecordStep,
  FindPatternsCallOptions,
} from '../../ports/learning-sink.js';
import { ulid } from '../../util/ids.js';
import { requireString } from '../shared/validate.js';
import {
  FEEDBACK_COLUMNS,
  STEP_COLUMNS,
  TRAJECTORY_COLUMNS,
  feedbackValues,
  placeholders,
  rowToFeedback,
  rowToStep,
  rowToTrajectory,
  stepValues,
  trajectoryValues,
  type Row,
} from '../sql/records.js';
import {
  validateBegin,
  validateEnd,
  validateFeedbackQuery,
  validatePatternCount,
  validateStep,
} from '../sql/learning.js';
import { checkpointAfterDelete, type SqliteDatabase } from './database.js';

/** Builds the `LearningSink` of an open, migrated database. */
export function createSqliteLearningSink(database: SqliteDatabase, name = 'sqlite'): LearningSink {
  const statement = {
    insertTrajectory: database.prepare(
      `INSERT INTO trajectories (${TRAJECTORY_COLUMNS.join(', ')}) VALUES (${placeholders('sqlite', TRAJECTORY_COLUMNS.length)})`,
    ),
    getTrajectory: database.prepare('SELECT * FROM trajectories WHERE id = ?'),
    insertStep: database.prepare(
      `INSERT INTO trajectory_steps (${STEP_COLUMNS.join(', ')}) VALUES (${placeholders('sqlite', STEP_COLUMNS.length)})`,
    ),
    addStep: database.prepare(
      'UPDATE trajectories SET step_count = step_count + 1, total_reward = total_reward + ? WHERE id = ?',
    ),
    end: database.prepare(
      `UPDATE trajectories SET status = ?, final_quality = ?, ended_at = ?
       WHERE id = ? AND status = 'active'`,
    ),
    steps: database.prepare(
      'SELECT * FROM trajectory_steps WHERE trajectory_id = ? ORDER BY step_number',
    ),
    upsertFeedback: database.prepare(
      `INSERT INTO feedback (${FEEDBACK_COLUMNS.join(', ')}) VALUES (${placeholders('sqlite', FEEDBACK_COLUMNS.length)})
       ON CONFLICT (message_id) DO UPDATE SET ${FEEDBACK_COLUMNS.filter(
         (column) => column !== 'message_id',
       )
         .map((column) => `${column} = excluded.${column}`)
         .join(', ')}`,
    ),
    stepsOfMessage: database.prepare(
      'SELECT id, trajectory_id, reward FROM trajectory_steps WHERE message_id = ?',
    ),
    setStepReward: database.prepare('UPDATE trajectory_steps SET reward = ? WHERE id = ?'),
    adjustTotal: database.prepare(
      'UPDATE trajectories SET total_reward = total_reward + ? WHERE id = ?',
    ),
    feedbackOfMessage: database.prepare(
      'SELECT * FROM feedback WHERE message_id = ? ORDER BY created_at, id',
    ),
    feedbackOfSession: database.prepare(
      'SELECT * FROM feedback WHERE session_id = ? ORDER BY created_at, id',
    ),
    feedbackSince: database.prepare(
      `SELECT * FROM feedback WHERE created_at >= ? ORDER BY created_at, id LIMIT ${FEEDBACK_PAGE_LIMIT}`,
    ),
    deleteSteps: database.prepare(
      'DELETE FROM trajectory_steps WHERE trajectory_id IN (SELECT id FROM trajectories WHERE session_id = ?)',
    ),
    deleteTrajectories: database.prepare('DELETE FROM trajectories WHERE session_id = ?'),
    deleteFeedback: database.prepare('DELETE FROM feedback WHERE session_id = ?'),
    deleteUserSteps: database.prepare(
      'DELETE FROM trajectory_steps WHERE trajectory_id IN (SELECT id FROM trajectories WHERE user_id = ?)',
    ),
    deleteUserTrajectories: database.prepare('DELETE FROM trajectories WHERE user_id = ?'),
    deleteUserFeedback: database.prepare('DELETE FROM feedback WHERE user_id = ?'),
    ended: database.prepare(
      "SELECT * FROM trajectories WHERE status <> 'active' AND final_quality > 0",
    ),
    endedOf: database.prepare(
      "SELECT * FROM trajectories WHERE status <> 'active' AND final_quality > 0 AND user_id = ?",
    ),
  };

  const record = database.transaction((step: RecordStep): TrajectoryStep => {
    const row = statement.getTrajectory.get(step.trajectoryId) as Row | undefined;
    if (!row) throw new NotFoundError('trajectory', step.trajectoryId);
    const recorded: TrajectoryStep = {
      id: ulid(),
      trajectoryId: step.trajectoryId,
      stepNumber: rowToTrajectory(row).stepCount + 1,
      messageId: step.messageId,
      query: step.query,
      chunkIds: [...step.chunkIds],
      reward: step.reward,
      createdAt: step.createdAt,
    };
    statement.insertStep.run(...stepValues(recorded));
    statement.addStep.run(step.reward, step.trajectoryId);
    return recorded;
  });

  const end = database.transaction((id: string, input: EndTrajectory) => {
    if (!statement.getTrajectory.get(id)) throw new NotFoundError('trajectory', id);
    statement.end.run(input.status, input.quality, input.endedAt, id);
  });

  const feedback = database.transaction((input: FeedbackRecord) => {
    statement.upsertFeedback.run(...feedbackValues(input));
    // The step of the rated message now carries the feedback's reward.
    for (const row of statement.stepsOfMessage.all(input.messageId) as Row[]) {
      statement.setStepReward.run(input.reward, row['id']);
      statement.adjustTotal.run(input.reward - Number(row['reward']), row['trajectory_id']);
    }
  });

  // Steps go explicitly too: a database opened without `foreign_keys = ON` does not cascade.
  const removeSession = database.transaction((sessionId: string): number => {
    statement.deleteSteps.run(sessionId);
    return (
      statement.deleteTrajectories.run(sessionId).changes +
      statement.deleteFeedback.run(sessionId).changes
    );
  });

  const removeUser = database.transaction((userId: string) => {
    statement.deleteUserSteps.run(userId);
    return {
      trajectories: statement.deleteUserTrajectories.run(userId).changes,
      feedback: statement.deleteUserFeedback.run(userId).changes,
    };
  });

  return {
    name,
    specificationVersion: 'v1',

    async beginTrajectory(input: BeginTrajectory, options?: CallOptions) {
      throwIfAborted(options?.signal);
      validateBegin(input);
      const trajectory = newTrajectory(input);
      statement.insertTrajectory.run(...trajectoryValues(trajectory));
      return trajectory.id;
    },

    async recordStep(step: RecordStep, options?: CallOptions) {
      throwIfAborted(options?.signal);
      validateStep(step);
      return record.immediate(step);
    },

    async endTrajectory(id: string, input: EndTrajectory, options?: CallOptions) {
      throwIfAborted(options?.signal);
      validateEnd(input);
      end.immediate(id, input);
    },

    async getTrajectory(id: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      const row = statement.getTrajectory.get(id) as Row | undefined;
      return row ? rowToTrajectory(row) : null;
    },

    async listSteps(trajectoryId: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      return (statement.steps.all(trajectoryId) as Row[]).map(rowToStep);
    },

    async recordFeedback(input: FeedbackRecord, options?: CallOptions) {
      throwIfAborted(options?.signal);
      validateFeedbackRecord(input);
      feedback.immediate(input);
    },

    async listFeedback(query, options?: CallOptions) {
      throwIfAborted(options?.signal);
      const { column, value } = validateFeedbackQuery(query);
      const select =
        column === 'message_id'
          ? statement.feedbackOfMessage
          : column === 'created_at'
            ? statement.feedbackSince
            : statement.feedbackOfSession;
      return (select.all(value) as Row[]).map(rowToFeedback);
    },

    async deleteSession(sessionId: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(sessionId, 'sessionId');
      const removed = removeSession.immediate(sessionId);
      checkpointAfterDelete(database);
      return removed;
    },

    async deleteUser(userId: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(userId, 'userId');
      const removed = removeUser.immediate(userId);
      checkpointAfterDelete(database);
      return removed;
    },

    async findPatterns(query: string, k: number, options?: FindPatternsCallOptions) {
      throwIfAborted(options?.signal);
      validatePatternCount(k);
      const userId = options?.userId;
      const rows = (
        userId === undefined ? statement.ended.all() : statement.endedOf.all(userId)
      ) as Row[];
      return rankPatterns(query, k, rows.map(rowToTrajectory));
    },
  };
}
