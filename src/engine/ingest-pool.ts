/**
 * The ingest worker pool (Node only): worker threads that prepare groups of documents
 * (`ingest-worker.ts`) while the calling thread merges the prepared groups into the indexes.
 * Loaded by `documents.ts` with a dynamic import that bundlers do not follow, only where Node's
 * `worker_threads` exist; elsewhere every group is prepared on the calling thread. Built as
 * `dist/ingest-pool.js` (tsup.config.ts), next to the worker's script.
 */
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { startScriptWorker } from '../util/node-worker.js';
import type { GroupPreparer } from '../ingest/ingest.js';
import type { PrepareJob, PreparedWire } from '../ingest/prepare.js';
import type { IngestWorkerReply } from './ingest-protocol.js';

/** This module's URL (`import.meta.url` is empty in the CommonJS build; `__filename` is set). */
function here(): string | undefined {
  if (typeof import.meta.url === 'string') return import.meta.url;
  return typeof __filename === 'string' ? pathToFileURL(__filename).href : undefined;
}

/** The worker's script: next to this module in the build, or the source under tsx. */
function defaultWorker(): URL | undefined {
  const self = here();
  if (self === undefined) return undefined;
  return new URL(self.endsWith('.ts') ? './ingest-worker.ts' : './ingest-worker.js', self);
}

/**
 * Documents in one ingest from which workers pay on a machine of two cores or fewer. Measured on
 * 2 cores (docs/benchmarks.md, "ingest8"): SciFact's 5,183 documents were slower with two
 * workers than on the calling thread (first ingest of a process 1.4–1.6× the wall time, 1.6×
 * the CPU: each worker starts, compiles and fills its memos, and two workers and the merging
 * calling thread are three busy threads). For `bench/scale.ts`'s batches of 10,000 the wall
 * time did not resolve a difference, but the calling thread alone spent 9.5–10.5 s of its own
 * CPU per 30,000 documents against 5–6 s beside workers: a floor workers lower. Between the
 * two sizes, the boundary is not measured.
 */
const SMALL_MACHINE_MIN_DOCUMENTS = 8192;

/**
 * Workers by default for an ingest of `documents` documents on a machine of `cores` cores: one
 * per core from three cores on; on one or two, as many only for a batch large enough to repay
 * starting them, else 1 (the calling thread prepares).
 */
export function ingestConcurrencyFor(cores: number, documents: number): number {
  if (cores > 2 || documents >= SMALL_MACHINE_MIN_DOCUMENTS) return Math.max(1, cores);
  return 1;
}

/** Workers by default on this machine (`ingestConcurrencyFor` its cores) for `documents`. */
export function defaultIngestConcurrency(documents = Number.POSITIVE_INFINITY): number {
  return ingestConcurrencyFor(availableParallelism(), documents);
}

/**
 * How long a worker may take to load before the pool gives up on workers (and every group is
 * prepared on the calling thread): a worker that never reports ready must not hang ingestion.
 */
const START_TIMEOUT_MS = 60_000;

interface Queued {
  readonly job: PrepareJob;
  readonly resolve: (wire: PreparedWire) => void;
  readonly reject: (error: Error) => void;
  readonly limit: number;
}

interface Slot {
  worker: Promise<Worker | undefined> | undefined;
  busy: boolean;
}

/** Options of an `IngestPool`. */
export interface IngestPoolOptions {
  /** The worker's script; default the package's own (`dist/ingest-worker.js`). */
  readonly url?: URL | undefined;
  /** How long a worker may take to report ready (default 60 s); past it, no worker is used. */
  readonly startTimeoutMs?: number | undefined;
}

/**
 * Ingest workers, started on first use and reused across ingestions, one job each at a time.
 * Idle, they do not keep the process alive. A worker that crashes is replaced on the next job;
 * its job is rejected (the caller prepares that group itself). A worker that cannot start makes
 * every job rejected from then on.
 */
export class IngestPool {
  /** Workers started so far. */
  started = 0;
  /** Jobs answered with a prepared group. */
  answered = 0;
  /** Jobs rejected (a worker's error, crash or missing script). */
  failed = 0;
  readonly #script: URL | undefined;
  readonly #startTimeoutMs: number;
  readonly #slots: Slot[] = [];
  readonly #queue: Queued[] = [];
  #unavailable = false;

  constructor(options: IngestPoolOptions = {}) {
    this.#script = options.url ?? defaultWorker();
    this.#startTimeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS;
    if (this.#script === undefined) this.#unavailable = true;
  }

  /** A preparer for one ingestion, running at most `concurrency` workers at once. */
  preparer(concurrency: number = defaultIngestConcurrency()): GroupPreparer {
    return {
      concurrency,
      prepare: (job) =>
        new Promise<PreparedWire>((resolve, reject) => {
          this.#queue.push({ job, resolve, reject, limit: concurrency });
          this.#pump();
        }),
    };
  }

  /** Terminates every worker (a later job starts others). */
  async close(): Promise<void> {
    const workers = await Promise.all(this.#slots.map((slot) => slot.worker));
    this.#slots.length = 0;
    await Promise.all(workers.map((worker) => worker?.terminate()));
  }

  #pump(): void {
    while (this.#queue.length > 0) {
      const next = this.#queue[0]!;
      if (this.#unavailable) {
        this.#queue.shift();
        this.failed += 1;
        next.reject(new Error('no ingest worker can start'));
        continue;
      }
      let index = this.#slots.findIndex((slot, at) => at < next.limit && !slot.busy);
      if (index < 0 && this.#slots.length < next.limit) {
        index = this.#slots.push({ worker: undefined, busy: false }) - 1;
      }
      if (index < 0) return;
      this.#queue.shift();
      const slot = this.#slots[index]!;
      slot.busy = true;
      void this.#run(slot, next).finally(() => {
        slot.busy = false;
        this.#pump();
      });
    }
  }

  #start(slot: Slot): Promise<Worker | undefined> {
    slot.worker ??= new Promise<Worker | undefined>((resolve) => {
      let worker: Worker;
      try {
        worker = startScriptWorker(this.#script!);
      } catch {
        this.#unavailable = true;
        resolve(undefined);
        return;
      }
      this.started += 1;
      const failed = () => {
        clearTimeout(timer);
        this.#unavailable = true;
        slot.worker = undefined;
        resolve(undefined);
      };
      const timer = setTimeout(() => {
        failed();
        void worker.terminate().catch(() => undefined);
      }, this.#startTimeoutMs);
      timer.unref?.();
      worker.once('error', failed);
      worker.once('exit', failed);
      worker.once('message', (reply: IngestWorkerReply) => {
        clearTimeout(timer);
        worker.off('error', failed);
        worker.off('exit', failed);
        worker.unref();
        if (reply.type !== 'ready') {
          failed();
          return;
        }
        // A worker that dies between jobs is forgotten (the next job starts another); its
        // error must not reach the process as an unhandled 'error' event.
        worker.on('error', () => undefined);
        worker.once('exit', () => {
          if (slot.worker === started) slot.worker = undefined;
        });
        resolve(worker);
      });
    });
    const started = slot.worker;
    return started;
  }

  async #run(slot: Slot, queued: Queued): Promise<void> {
    const worker = await this.#start(slot);
    if (worker === undefined) {
      this.failed += 1;
      queued.reject(new Error('no ingest worker can start'));
      return;
    }
    worker.ref();
    try {
      const wire = await new Promise<PreparedWire>((resolve, reject) => {
        const done = () => {
          worker.off('message', onMessage);
          worker.off('error', onError);
          worker.off('exit', onExit);
        };
        const drop = () => {
          slot.worker = undefined;
          void worker.terminate().catch(() => undefined);
        };
        const onMessage = (reply: IngestWorkerReply) => {
          done();
          if (reply.type === 'prepared') resolve(reply.wire);
          else if (reply.type === 'error') {
            const error = new Error(reply.message);
            error.name = reply.name;
            reject(error);
          }
        };
        const onError = (error: Error) => {
          done();
          drop();
          reject(error);
        };
        const onExit = (code: number) => {
          done();
          drop();
          reject(new Error(`an ingest worker exited with code ${code}`));
        };
        worker.on('message', onMessage);
        worker.on('error', onError);
        worker.on('exit', onExit);
        worker.postMessage(queued.job);
      });
      this.answered += 1;
      queued.resolve(wire);
    } catch (error) {
      this.failed += 1;
      queued.reject(error instanceof Error ? error : new Error(String(error)));
    } finally {
      worker.unref();
    }
  }
}

let shared: IngestPool | undefined;

/** The process's ingest pool, shared by every engine. */
export function sharedIngestPool(): IngestPool {
  shared ??= new IngestPool();
  return shared;
}
