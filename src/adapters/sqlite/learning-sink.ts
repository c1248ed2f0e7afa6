/** `LearningSink` on SQLite: a step and its trajectory's totals change in one transaction. */
import { NotFoundError, throwIfAborted } from '../../errors/index.js';
import type { CallOptions } from '../../ports/common.js';
import type { TrajectoryRecord, TrajectoryStep } from '../../ports/chat-records.js';
import type {
  BeginTrajectory,
  EndTrajectory,
  LearningSink,
  RecordStep,
} from '../../ports/learning-sink.js';
import { ulid } from '../../util/ids.js';
import {
  STEP_COLUMNS,
  TRAJECTORY_COLUMNS,
  placeholders,
  rowToStep,
  rowToTrajectory,
  stepValues,
  trajectoryValues,
  type Row,
} from '../sql/records.js';
import { validateBegin, validateEnd, validateStep } from '../sql/learning.js';
import type { SqliteDatabase } from './database.js';

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

  return {
    name,
    specificationVersion: 'v1',

    async beginTrajectory(input: BeginTrajectory, options?: CallOptions) {
      throwIfAborted(options?.signal);
      validateBegin(input);
      const trajectory: TrajectoryRecord = {
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
  };
}
