import { describe, expect, it } from 'vitest';
import { createMemoryLearningSink } from '../../../src/adapters/memory/learning-sink.js';
import { NotFoundError, ValidationError } from '../../../src/errors/index.js';
import type { RecordStep } from '../../../src/ports/learning-sink.js';

const BEGIN = {
  sessionId: 'session-1',
  userId: 'user-1',
  initialQuery: 'What is the refund policy?',
  route: 'retrieval',
  startedAt: '2024-03-01T12:00:00.000Z',
};

const step = (trajectoryId: string, reward: number): RecordStep => ({
  trajectoryId,
  messageId: 'message-1',
  query: 'refund policy',
  chunkIds: ['handbook#1'],
  reward,
  createdAt: '2024-03-01T12:01:00.000Z',
});

async function issuePath(action: () => Promise<unknown>): Promise<string | undefined> {
  const error = await action().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(ValidationError.isInstance(error)).toBe(true);
  return (error as ValidationError).issues[0]?.path;
}

describe('createMemoryLearningSink', () => {
  it('gives trajectories and steps ULID ids', async () => {
    const sink = createMemoryLearningSink();
    const id = await sink.beginTrajectory(BEGIN);
    expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect((await sink.recordStep(step(id, 0.5))).id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('names the invalid field', async () => {
    const sink = createMemoryLearningSink();
    const id = await sink.beginTrajectory(BEGIN);
    expect(await issuePath(() => sink.beginTrajectory({ ...BEGIN, userId: '' }))).toBe('userId');
    expect(await issuePath(() => sink.recordStep(step(id, 2)))).toBe('reward');
    expect(
      await issuePath(() => sink.recordStep({ ...step(id, 0), chunkIds: ['ok', 7 as never] })),
    ).toBe('chunkIds.1');
    const end = { status: 'completed', quality: 0.5, endedAt: '2024-03-01T13:00:00.000Z' } as const;
    expect(await issuePath(() => sink.endTrajectory(id, { ...end, quality: 1.2 }))).toBe('quality');
    expect(
      await issuePath(() => sink.endTrajectory(id, { ...end, status: 'active' as never })),
    ).toBe('status');
    expect((await sink.getTrajectory(id))?.status).toBe('active');
  });

  it('rejects an unknown trajectory with a NotFoundError naming it', async () => {
    const sink = createMemoryLearningSink();
    const error = await sink.recordStep(step('nope', 0)).catch((caught: unknown) => caught);
    expect(NotFoundError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ resource: 'trajectory', id: 'nope' });
  });

  it('still records steps after a trajectory ended (a user may come back)', async () => {
    const sink = createMemoryLearningSink();
    const id = await sink.beginTrajectory(BEGIN);
    await sink.endTrajectory(id, {
      status: 'abandoned',
      quality: 0.2,
      endedAt: '2024-03-01T13:00:00.000Z',
    });
    const late = await sink.recordStep(step(id, -0.5));
    expect(late.stepNumber).toBe(1);
    expect(await sink.getTrajectory(id)).toMatchObject({
      status: 'abandoned',
      stepCount: 1,
      totalReward: -0.5,
    });
  });

  it('hands out frozen records and fresh step lists', async () => {
    const sink = createMemoryLearningSink();
    const id = await sink.beginTrajectory(BEGIN);
    const chunkIds = ['a'];
    const recorded = await sink.recordStep({ ...step(id, 0.5), chunkIds });
    chunkIds.push('b');
    expect(recorded.chunkIds).toEqual(['a']);
    expect(Object.isFrozen(recorded)).toBe(true);
    expect(Object.isFrozen(await sink.getTrajectory(id))).toBe(true);
    const steps = await sink.listSteps(id);
    steps.pop();
    expect(await sink.listSteps(id)).toHaveLength(1);
  });
});
