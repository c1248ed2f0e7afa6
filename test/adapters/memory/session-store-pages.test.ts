import { messageRecord } from '../../util/helpers.js';
import { describe, expect, it } from 'vitest';
import { createMemorySessionStore } from '../../../src/adapters/memory/session-store.js';
import type { SessionRecord } from '../../../src/ports/chat-records.js';

const owner: SessionRecord = {
  id: 's1',
  userId: 'u1',
  title: null,
  status: 'active',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  endedAt: null,
  trajectoryId: null,
  settings: {},
  stats: { messageCount: 0, totalSearchMs: 0, totalGenerationMs: 0 },
  metadata: {},
};

describe('memory session store: pages of messages', () => {
  it('gives every page (order, offset, limit, uncovered only) as the whole list sliced', async () => {
    const store = createMemorySessionStore();
    await store.createSession(owner);
    await store.appendMessages(
      owner.id,
      Array.from({ length: 12 }, (_, i) => messageRecord(i)),
    );
    await store.appendSummary(
      owner.id,
      messageRecord(12, {
        role: 'system-summary',
        content: 'summary',
        covers: ['m0', 'm1', 'm2', 'm3'],
      }),
    );
    await store.appendMessages(owner.id, [messageRecord(13), messageRecord(14)]);
    const all = await store.listMessages(owner.id);
    expect(all.map((m) => m.id)).toEqual(Array.from({ length: 15 }, (_, i) => `m${i}`));
    for (const order of ['asc', 'desc'] as const) {
      for (const uncoveredOnly of [false, true]) {
        const whole = (order === 'desc' ? [...all].reverse() : all).filter(
          (m) => !uncoveredOnly || !m.coveredBy,
        );
        for (const offset of [0, 1, 3, 11, 20]) {
          for (const limit of [0, 1, 4, 100, undefined]) {
            const page = await store.listMessages(owner.id, {
              order,
              uncoveredOnly,
              offset,
              limit,
            });
            const expected = whole.slice(offset, limit === undefined ? undefined : offset + limit);
            expect(
              page.map((m) => m.id),
              `${order} ${uncoveredOnly} ${offset} ${limit}`,
            ).toEqual(expected.map((m) => m.id));
          }
        }
      }
    }
    const newest = await store.listMessages(owner.id, {
      order: 'desc',
      limit: 4,
      uncoveredOnly: true,
    });
    expect(newest.map((m) => m.id)).toEqual(['m14', 'm13', 'm12', 'm11']);
  });
});
