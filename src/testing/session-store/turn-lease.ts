/**
 * Conformance cases of the optional `SessionStore.acquireTurn`: a session's turn lease has one
 * holder at a time (the next one gets it only after `release`), other sessions do not wait, a
 * waiter whose signal fires rejects with `aborted` without holding up the one after it, and
 * releasing twice does nothing. A store without it declares so (`skip.turnLease`, the reason
 * printed in the title).
 */
import { beforeEach, describe, expect, it } from '../runner.js';
import type { SessionStore } from '../../ports/session-store.js';
import { ulid } from '../../util/ids.js';
import { expectErrorCode, titled } from '../shared.js';
import type { SessionStoreCaseContext } from './fixtures.js';

/** Registers the `acquireTurn (optional)` cases. */
export function turnLeaseCases(
  context: SessionStoreCaseContext,
  skipReason: string | undefined,
): void {
  describe('acquireTurn (optional)', () => {
    let store: SessionStore;

    // The store the suite made for the running test.
    beforeEach(() => {
      ({ store } = context);
    });

    const acquire: SessionStore['acquireTurn'] = (sessionId, options) => {
      expect(typeof store.acquireTurn, 'acquireTurn (declare skip.turnLease if absent)').toBe(
        'function',
      );
      return store.acquireTurn!(sessionId, options);
    };

    it.skipIf(skipReason)(
      titled('gives a session to one holder at a time, in turn', skipReason),
      async () => {
        const sessionId = ulid();
        const events: string[] = [];
        const first = await acquire(sessionId);
        events.push('first acquired');
        const second = acquire(sessionId).then((lease) => {
          events.push('second acquired');
          return lease;
        });
        // Another session is not held up by this one.
        const other = await acquire(ulid());
        events.push('other acquired');
        await other.release();
        expect(events).toEqual(['first acquired', 'other acquired']);
        events.push('first released');
        await first.release();
        await first.release();
        const lease = await second;
        expect(events).toEqual([
          'first acquired',
          'other acquired',
          'first released',
          'second acquired',
        ]);
        await lease.release();
        // Free again.
        await (await acquire(sessionId)).release();
      },
    );

    it.skipIf(skipReason)(
      titled("rejects a waiter whose signal fires with code 'aborted'", skipReason),
      async () => {
        const sessionId = ulid();
        const holder = await acquire(sessionId);
        const controller = new AbortController();
        const given = acquire(sessionId, { signal: controller.signal });
        const after = acquire(sessionId);
        controller.abort();
        await expectErrorCode(() => given, 'aborted', 'acquireTurn with a fired signal');
        await holder.release();
        await (await after).release();
      },
    );

    it.skipIf(skipReason)(
      titled("refuses an empty session id or a bad ttlMs with 'validation_error'", skipReason),
      async () => {
        await expectErrorCode(() => acquire(''), 'validation_error', 'acquireTurn of an empty id');
        await expectErrorCode(
          () => acquire(ulid(), { ttlMs: -1 }),
          'validation_error',
          'acquireTurn with ttlMs -1',
        );
      },
    );
  });
}
