/**
 * What the `cortexis` command reads and writes: its streams and environment (`CliIO`). The
 * command and the chat loop both take it; tests pass their own.
 */

/** Where the CLI reads and writes; tests pass their own. */
export interface CliIO {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream;
  /** Environment variables (provider keys, cache folder). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Subscribes to Ctrl-C arriving as a signal (stdin not a terminal); returns the
   * unsubscribe function. On a terminal, the REPL's readline reports Ctrl-C itself.
   */
  readonly onInterrupt?: (handler: () => void) => () => void;
}

/** Environment variables, as `CliIO.env` holds them. */
export type Env = Readonly<Record<string, string | undefined>>;

/** No documents in the given paths (exit code 3). */
export class NoDocumentsError extends Error {
  override readonly name = 'NoDocumentsError';
}
