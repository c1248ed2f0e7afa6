import { pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { startScriptWorker } from '../util/node-worker.js';
import type { Parsed, ParseJob } from './parse.js';
import { fromWire, type WorkerReply } from './parse-protocol.js';

/** Thrown when a file's parse runs past its deadline; the worker running it is terminated. */
export class ParseTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(
      `parsing took longer than limits.parseTimeoutMs (${timeoutMs} ms); the parser was stopped`,
    );
    this.name = 'ParseTimeoutError';
  }
}

/** This module's URL (`import.meta.url` is empty in the CommonJS build; `__filename` is set). */
function here(): string | undefined {
  if (typeof import.meta.url === 'string') return import.meta.url;
  return typeof __filename === 'string' ? pathToFileURL(__filename).href : undefined;
}

/** Where the parse worker's script is: next to this module in the build, or the source under tsx. */
function defaultWorker(): URL | undefined {
  const self = here();
  if (self === undefined) return undefined;
  return new URL(self.endsWith('.ts') ? './parse-worker.ts' : './loaders-worker.js', self);
}

/**
 * The worker's young generation (V8's space for new objects), in MiB. Parsers allocate
 * mostly short-lived objects; V8 lets this space grow to tens of MiB, which then counts in the
 * process's peak memory. Capped, a 1 MB HTML page peaks at 12–14 MiB above the process's
 * start instead of 21–23, a 2,000-page PDF at 17–19 instead of 44, in the same CPU time
 * (bench/loaders.ts, issue 28).
 */
const YOUNG_GENERATION_MB = 6;

/** The longest delay `setTimeout` keeps (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Options of a `ParsePool`. */
export interface ParsePoolOptions {
  /** The worker's script; default the package's own (`dist/loaders-worker.js`). */
  readonly url?: URL | undefined;
}

/**
 * One parse worker, reused across files and jobs one at a time, started on first use and
 * replaced after a timeout or a crash. Idle, it does not keep the process alive. A worker that
 * cannot start (its script missing from a bundle) makes `parse` answer `undefined` from then on:
 * the caller parses on its own thread.
 */
export class ParsePool {
  /** Workers started so far (a timeout or crash replaces the worker). */
  started = 0;
  /** Jobs the worker answered (parsed, or with the parser's error). */
  answered = 0;
  readonly #script: URL | undefined;
  #worker: Promise<Worker | undefined> | undefined;
  #live: Worker | undefined;
  #unavailable = false;
  #tail: Promise<unknown> = Promise.resolve();

  constructor(options: ParsePoolOptions = {}) {
    this.#script = options.url ?? defaultWorker();
    if (this.#script === undefined) this.#unavailable = true;
  }

  /**
   * Parses a job in the worker within `timeoutMs` (`ParseTimeoutError` past it), or answers
   * `undefined` when no worker can run. Jobs run one after another.
   */
  parse(job: ParseJob, timeoutMs: number): Promise<Parsed | undefined> {
    const run = this.#tail.then(() => this.#run(job, timeoutMs));
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /** Terminates the worker (a later `parse` starts another). */
  async close(): Promise<void> {
    const worker = await this.#worker;
    this.#forget();
    await worker?.terminate();
  }

  #start(): Promise<Worker | undefined> {
    if (this.#unavailable || this.#script === undefined) return Promise.resolve(undefined);
    this.#worker ??= new Promise<Worker | undefined>((resolve) => {
      let worker: Worker;
      try {
        worker = startScriptWorker(this.#script!, {
          maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
        });
      } catch {
        this.#unavailable = true;
        resolve(undefined);
        return;
      }
      this.started += 1;
      const failed = () => {
        this.#unavailable = true;
        this.#worker = undefined;
        resolve(undefined);
      };
      worker.once('error', failed);
      worker.once('exit', failed);
      worker.once('message', (reply: WorkerReply) => {
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
          if (this.#live === worker) this.#forget();
        });
        this.#live = worker;
        resolve(worker);
      });
    });
    return this.#worker;
  }

  #forget(): void {
    this.#worker = undefined;
    this.#live = undefined;
  }

  #drop(worker: Worker): void {
    // Jobs run one at a time: the worker dropped is the current one.
    this.#forget();
    void worker.terminate().catch(() => undefined);
  }

  async #run(job: ParseJob, timeoutMs: number): Promise<Parsed | undefined> {
    const worker = await this.#start();
    if (worker === undefined) return undefined;
    worker.ref();
    try {
      return await new Promise<Parsed>((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          worker.off('message', onMessage);
          worker.off('error', onError);
          worker.off('exit', onExit);
        };
        const timer = setTimeout(
          () => {
            done();
            this.#drop(worker);
            reject(new ParseTimeoutError(timeoutMs));
          },
          Math.min(timeoutMs, MAX_TIMER_MS),
        );
        const onMessage = (reply: WorkerReply) => {
          done();
          this.answered += 1;
          if (reply.type === 'parsed') resolve(reply.parsed);
          else if (reply.type === 'error') reject(fromWire(reply.error));
        };
        const onError = (error: Error) => {
          done();
          this.#drop(worker);
          reject(error);
        };
        const onExit = (code: number) => {
          done();
          this.#drop(worker);
          reject(new Error(`the parse worker exited with code ${code}`));
        };
        worker.on('message', onMessage);
        worker.on('error', onError);
        worker.on('exit', onExit);
        worker.postMessage(job);
      });
    } finally {
      worker.unref();
    }
  }
}

let shared: ParsePool | undefined;

/** The process's parse pool, shared by every `loadDocuments` call. */
export function sharedParsePool(): ParsePool {
  shared ??= new ParsePool();
  return shared;
}

/** A hidden option of `loadDocuments` (tests): parse with this pool instead of the shared one. */
export const PARSE_POOL = Symbol('cortexis.loaders.parsePool');
