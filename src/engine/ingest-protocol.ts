/**
 * What the ingest pool (`ingest-pool.ts`) and its workers (`ingest-worker.ts`) say to each
 * other: jobs are `PrepareJob`s, replies these.
 */
import type { PreparedWire } from '../ingest/prepare.js';

/** What an ingest worker posts: `ready` once loaded, then one reply per job, in order. */
export type IngestWorkerReply =
  | { readonly type: 'ready' }
  | { readonly type: 'prepared'; readonly wire: PreparedWire }
  | { readonly type: 'error'; readonly name: string; readonly message: string };
