import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BeginTrajectory, LearningSink, RecordStep } from '../ports/learning-sink.js';
import { ulid } from '../util/ids.js';
import {
  abortedSignal,
  expectErrorCode,
  titled,
  uniqueName,
  type SkipReasons,
  type SuiteOptions,
} from './shared.js';

/** Parts of the `LearningSink` contract an adapter may lack (see {@link SkipReasons}). */
export type LearningSinkCapability = 'validation' | 'abort';

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
 * `validation_error`, and aborted calls with `aborted`.
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

    it('declares its name and specification version', () => {
      expect(typeof sink.name).toBe('string');
      expect(sink.name.length).toBeGreaterThan(0);
      expect(sink.specificationVersion).toBe('v1');
    });

    it('begins an active, empty trajectory with a new id', async () => {
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
      expect(await sink.getTrajectory(ulid())).toBeNull();
      expect(await sink.listSteps(ulid())).toEqual([]);
    });

    it('numbers steps 1, 2, … and keeps stepCount and totalReward in step', async () => {
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
      await expectErrorCode(
        () => sink.recordStep(step(ulid(), 0.5)),
        'not_found',
        'recordStep for an unknown trajectory',
      );
    });

    it('ends a trajectory once; ending it again changes nothing', async () => {
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

    it.skipIf(skip.abort)(
      titled("rejects calls with an aborted signal with code 'aborted'", skip.abort),
      async () => {
        const signal = abortedSignal();
        const id = await sink.beginTrajectory(begin);
        const end = {
          status: 'completed',
          quality: 1,
          endedAt: '2024-03-01T13:00:00.000Z',
        } as const;
        const calls: Array<[string, () => Promise<unknown>]> = [
          ['beginTrajectory', () => sink.beginTrajectory(begin, { signal })],
          ['recordStep', () => sink.recordStep(step(id, 0.5), { signal })],
          ['endTrajectory', () => sink.endTrajectory(id, end, { signal })],
          ['getTrajectory', () => sink.getTrajectory(id, { signal })],
          ['listSteps', () => sink.listSteps(id, { signal })],
        ];
        for (const [name, call] of calls) await expectErrorCode(call, 'aborted', name);
        expect(await sink.getTrajectory(id)).toMatchObject({ status: 'active', stepCount: 0 });
      },
    );
  });
}
