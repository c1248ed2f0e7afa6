/**
 * Conformance cases of `LearningSink` trajectories: begin active and empty, steps numbered
 * 1, 2, … per trajectory with `stepCount` and `totalReward`, idempotent ending, unknown
 * trajectories rejected with `not_found`, rewards outside [-1, 1] with `validation_error`.
 */
import { expect, it } from '../runner.js';
import { ulid } from '../../util/ids.js';
import { expectErrorCode, titled, type SkipReasons } from '../shared.js';
import type { LearningSinkCaseContext } from './context.js';

/** Registers the trajectory and step cases. */
export function trajectoryCases(
  context: LearningSinkCaseContext,
  skip: SkipReasons<'validation'>,
): void {
  const { step } = context;
  it('begins an active, empty trajectory with a new id', async () => {
    const { sink, begin } = context;
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
    const { sink } = context;
    expect(await sink.getTrajectory(ulid())).toBeNull();
    expect(await sink.listSteps(ulid())).toEqual([]);
  });

  it('numbers steps 1, 2, … and keeps stepCount and totalReward in step', async () => {
    const { sink, begin } = context;
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
    const { sink, begin } = context;
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
    const { sink } = context;
    await expectErrorCode(
      () => sink.recordStep(step(ulid(), 0.5)),
      'not_found',
      'recordStep for an unknown trajectory',
    );
  });

  it('ends a trajectory once; ending it again changes nothing', async () => {
    const { sink, begin } = context;
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
    const { sink } = context;
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
      const { sink, begin } = context;
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
}
