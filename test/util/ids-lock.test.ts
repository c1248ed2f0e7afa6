import { describe, expect, it } from 'vitest';
import { isoNow, ulid } from '../../src/util/ids.js';
import { KeyedLock } from '../../src/util/keyed-lock.js';

describe('ulid', () => {
  it('is 26 Crockford base32 characters and sorts by creation order', () => {
    const ids = Array.from({ length: 1000 }, () => ulid(1_700_000_000_000));
    expect(ids.every((id) => /^[0-9A-HJKMNP-TV-Z]{26}$/.test(id))).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ulid(1_700_000_000_001) > ids[999]!).toBe(true);
  });

  it('draws fresh random digits for each new millisecond, across refills of its byte pool', () => {
    // 600 ids over 600 milliseconds: more than two pools of 256 ids.
    const ids = Array.from({ length: 600 }, (_, index) => ulid(1_700_000_000_000 + 2 * index));
    expect(ids.every((id) => /^[0-9A-HJKMNP-TV-Z]{26}$/.test(id))).toBe(true);
    expect(new Set(ids.map((id) => id.slice(10))).size).toBe(ids.length);
    expect(ids.map((id) => id.slice(0, 10))).toEqual(
      ids.map((_, index) => {
        let time = '';
        let rest = 1_700_000_000_000 + 2 * index;
        for (let digit = 0; digit < 10; digit++, rest = Math.floor(rest / 32)) {
          time = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'[rest % 32] + time;
        }
        return time;
      }),
    );
  });

  it('formats time as ISO-8601 UTC', () => {
    expect(isoNow(0)).toBe('1970-01-01T00:00:00.000Z');
    for (const now of [1_700_000_000_000, 1_700_000_000_000, 1_700_000_000_001, 0, 1.5e12]) {
      expect(isoNow(now)).toBe(new Date(now).toISOString());
    }
    expect(() => isoNow(Number.NaN)).toThrow(RangeError);
  });
});

describe('KeyedLock', () => {
  it('runs tasks of one key in call order, even when one fails', async () => {
    const lock = new KeyedLock();
    const order: number[] = [];
    const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const results = await Promise.allSettled([
      lock.run('a', async () => {
        await delay(20);
        order.push(1);
      }),
      lock.run('a', async () => {
        order.push(2);
        throw new Error('boom');
      }),
      lock.run('a', async () => {
        order.push(3);
      }),
    ]);
    expect(order).toEqual([1, 2, 3]);
    expect(results[1]!.status).toBe('rejected');
  });

  it('runs different keys in parallel', async () => {
    const lock = new KeyedLock();
    const order: string[] = [];
    let release!: () => void;
    const blocked = lock.run('a', () => new Promise<void>((resolve) => (release = resolve)));
    await lock.run('b', async () => {
      order.push('b');
    });
    release();
    await blocked;
    expect(order).toEqual(['b']);
  });
});
