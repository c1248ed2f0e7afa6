import { parentPort } from 'node:worker_threads';
import { ConfigError, CortexisError, type FieldIssue } from '../errors/index.js';
import { LoadLimitError, type LoadLimits } from './limits.js';
import type { Parsed, ParseJob } from './parse.js';

/** An error as it crosses the worker boundary: its name, message and code survive. */
export interface WireError {
  readonly name: string;
  readonly message: string;
  /** A `CortexisError`'s code. */
  readonly code?: string | undefined;
  /** A `ConfigError`'s issues. */
  readonly issues?: readonly FieldIssue[] | undefined;
  /** A `LoadLimitError`'s limit. */
  readonly limit?: keyof LoadLimits | undefined;
}

/** What the parse worker posts: `ready` once loaded, then one reply per job. */
export type WorkerReply =
  | { readonly type: 'ready' }
  | { readonly type: 'parsed'; readonly parsed: Parsed }
  | { readonly type: 'error'; readonly error: WireError };

/** The error as plain data. */
export function toWire(error: unknown): WireError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const wire: WireError = { name: error.name, message: error.message };
  if (error instanceof LoadLimitError) return { ...wire, limit: error.limit };
  if (CortexisError.isInstance(error)) {
    const issues = ConfigError.isInstance(error) ? error.issues : undefined;
    return { ...wire, code: error.code, issues };
  }
  return wire;
}

/** The error back from plain data, with its class where the loaders branch on it. */
export function fromWire(wire: WireError): Error {
  if (wire.name === 'LoadLimitError' && wire.limit !== undefined) {
    return new LoadLimitError(wire.limit, wire.message);
  }
  if (wire.code === 'config_error') return new ConfigError(wire.message, wire.issues ?? []);
  const error = new Error(wire.message);
  error.name = wire.name;
  return error;
}

/**
 * Serves parse jobs on this worker's parent port with `parse`: one reply per job, in order.
 * The pool (`pool.ts`) sends one job at a time and terminates the worker past its deadline.
 */
export function serveParseJobs(parse: (job: ParseJob) => Promise<Parsed>): void {
  const port = parentPort;
  if (!port) throw new Error('the parse worker runs in a worker thread');
  port.on('message', (job: ParseJob) => {
    parse(job).then(
      (parsed) => port.postMessage({ type: 'parsed', parsed } satisfies WorkerReply),
      (error: unknown) =>
        port.postMessage({ type: 'error', error: toWire(error) } satisfies WorkerReply),
    );
  });
  port.postMessage({ type: 'ready' } satisfies WorkerReply);
}
