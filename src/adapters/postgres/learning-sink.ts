import { newTrajectory } from '../../learning/feedback.js';
import { FEEDBACK_PAGE_LIMIT } from '../../learning/feedback.js';
/**
 * `LearningSink` on Postgres: a step and its trajectory's totals change in one transaction;
 * so do a feedback row, the reward of its message's step and that trajectory's total.
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
  validateBegin,
  validateEnd,
  validateFeedbackQuery,
  validatePatternCount,
  validateStep,
} from '../sql/learning.js';
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
} from '../sql/records.js';
import { transaction, type PgPool } from './database.js';

/** Builds the `LearningSink` on a pool whose schema is migrated; `t` qualifies table names. */
export function createPostgresLearningSink(
  pool: PgPool,
  t: (name: string) => string,
  name = 'postgres',
): LearningSink {
  const upsertFeedback = `INSERT INTO ${t('feedback')} (${FEEDBACK_COLUMNS.join(', ')})
VALUES (${placeholders('postgres', FEEDBACK_COLUMNS.length)})
ON CONFLICT (message_id) DO UPDATE SET ${FEEDBACK_COLUMNS.filter(
    (column) => column !== 'message_id',
  )
    .map((column) => `${column} = excluded.${column}`)
    .join(', ')}`;

  return {
    name,
    specificationVersion: 'v1',

    async beginTrajectory(input: BeginTrajectory, options?: CallOptions) {
      throwIfAborted(options?.signal);
      validateBegin(input);
      const trajectory = newTrajectory(input);
      await pool.query(
        `INSERT INTO ${t('trajectories')} (${TRAJECTORY_COLUMNS.join(', ')}) VALUES (${placeholders('postgres', TRAJECTORY_COLUMNS.length)})`,
        trajectoryValues(trajectory),
      );
      return trajectory.id;
    },

    async recordStep(step: RecordStep, options?: CallOptions) {
      throwIfAborted(options?.signal);
      validateStep(step);
      return transaction(pool, async (client) => {
        const { rows } = await client.query(
          `SELECT step_count FROM ${t('trajectories')} WHERE id = $1 FOR UPDATE`,
          [step.trajectoryId],
        );
        if (rows.length === 0) throw new NotFoundError('trajectory', step.trajectoryId);
        const recorded: TrajectoryStep = {
          id: ulid(),
          trajectoryId: step.trajectoryId,
          stepNumber: Number(rows[0]!['step_count']) + 1,
          messageId: step.messageId,
          query: step.query,
          chunkIds: [...step.chunkIds],
          reward: step.reward,
          createdAt: step.createdAt,
        };
        await client.query(
          `INSERT INTO ${t('trajectory_steps')} (${STEP_COLUMNS.join(', ')}) VALUES (${placeholders('postgres', STEP_COLUMNS.length)})`,
          stepValues(recorded),
        );
        await client.query(
          `UPDATE ${t('trajectories')} SET step_count = step_count + 1, total_reward = total_reward + $1 WHERE id = $2`,
          [step.reward, step.trajectoryId],
        );
        return recorded;
      });
    },

    async endTrajectory(id: string, end: EndTrajectory, options?: CallOptions) {
      throwIfAborted(options?.signal);
      validateEnd(end);
      const { rowCount } = await pool.query(
        `UPDATE ${t('trajectories')} SET status = $1, final_quality = $2, ended_at = $3
         WHERE id = $4 AND status = 'active'`,
        [end.status, end.quality, end.endedAt, id],
      );
      if ((rowCount ?? 0) > 0) return;
      const { rows } = await pool.query(`SELECT 1 FROM ${t('trajectories')} WHERE id = $1`, [id]);
      if (rows.length === 0) throw new NotFoundError('trajectory', id);
    },

    async getTrajectory(id: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      const { rows } = await pool.query(`SELECT * FROM ${t('trajectories')} WHERE id = $1`, [id]);
      return rows[0] ? rowToTrajectory(rows[0]) : null;
    },

    async listSteps(trajectoryId: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      const { rows } = await pool.query(
        `SELECT * FROM ${t('trajectory_steps')} WHERE trajectory_id = $1 ORDER BY step_number`,
        [trajectoryId],
      );
      return rows.map(rowToStep);
    },

    async recordFeedback(feedback: FeedbackRecord, options?: CallOptions) {
      throwIfAborted(options?.signal);
      validateFeedbackRecord(feedback);
      await transaction(pool, async (client) => {
        // Locking the rated message's steps first orders concurrent feedback on one message.
        const { rows } = await client.query(
          `SELECT id, trajectory_id, reward FROM ${t('trajectory_steps')} WHERE message_id = $1 ORDER BY id FOR UPDATE`,
          [feedback.messageId],
        );
        await client.query(upsertFeedback, feedbackValues(feedback));
        for (const row of rows) {
          await client.query(`UPDATE ${t('trajectory_steps')} SET reward = $1 WHERE id = $2`, [
            feedback.reward,
            row['id'],
          ]);
          await client.query(
            `UPDATE ${t('trajectories')} SET total_reward = total_reward + $1 WHERE id = $2`,
            [feedback.reward - Number(row['reward']), row['trajectory_id']],
          );
        }
      });
    },

    async listFeedback(query, options?: CallOptions) {
      throwIfAborted(options?.signal);
      const { column, value } = validateFeedbackQuery(query);
      const { rows } = await pool.query(
        column === 'created_at'
          ? `SELECT * FROM ${t('feedback')} WHERE created_at >= $1 ORDER BY created_at, id LIMIT ${FEEDBACK_PAGE_LIMIT}`
          : `SELECT * FROM ${t('feedback')} WHERE ${column} = $1 ORDER BY created_at, id`,
        [value],
      );
      return rows.map(rowToFeedback);
    },

    async deleteSession(sessionId: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(sessionId, 'sessionId');
      return transaction(pool, async (client) => {
        // Steps cascade with their trajectory; feedback rows name the session themselves.
        const trajectories = await client.query(
          `DELETE FROM ${t('trajectories')} WHERE session_id = $1`,
          [sessionId],
        );
        const feedback = await client.query(`DELETE FROM ${t('feedback')} WHERE session_id = $1`, [
          sessionId,
        ]);
        return (trajectories.rowCount ?? 0) + (feedback.rowCount ?? 0);
      });
    },

    async deleteUser(userId: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(userId, 'userId');
      return transaction(pool, async (client) => {
        const trajectories = await client.query(
          `DELETE FROM ${t('trajectories')} WHERE user_id = $1`,
          [userId],
        );
        const feedback = await client.query(`DELETE FROM ${t('feedback')} WHERE user_id = $1`, [
          userId,
        ]);
        return { trajectories: trajectories.rowCount ?? 0, feedback: feedback.rowCount ?? 0 };
      });
    },

    async findPatterns(query: string, k: number, options?: FindPatternsCallOptions) {
      throwIfAborted(options?.signal);
      validatePatternCount(k);
      const userId = options?.userId;
      const { rows } = await pool.query(
        `SELECT * FROM ${t('trajectories')} WHERE status <> 'active' AND final_quality > 0${
          userId === undefined ? '' : ' AND user_id = $1'
        }`,
        userId === undefined ? [] : [userId],
      );
      return rankPatterns(query, k, rows.map(rowToTrajectory));
    },
  };
}
