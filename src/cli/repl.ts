/**
 * The `cortexis chat` loop (Node only): `node:readline` with line editing and a history kept
 * in a file across runs; Ctrl-C cancels a running answer, twice on an empty line leaves.
 */
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import type { CliIO } from './io.js';
import type { PrintedTurn } from './print-answer.js';

/** Lines kept in the history file and offered by Up/Down. */
export const HISTORY_SIZE = 500;

/** Settings of `runRepl`. */
export interface ReplSettings {
  readonly io: CliIO;
  /** The history file (one question per line, oldest first). */
  readonly historyFile: string;
  /** JSON lines mode: no prompt or banner on stdout. */
  readonly json: boolean;
  /** Answers one message, printing it; the signal cancels it. */
  readonly ask: (message: string, signal: AbortSignal) => Promise<PrintedTurn>;
}

/**
 * The history for readline from the file's text: newest first, at most `HISTORY_SIZE`,
 * blank lines and repeats dropped.
 */
export function parseHistory(text: string): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  const all = text.split('\n');
  for (let index = all.length - 1; index >= 0 && lines.length < HISTORY_SIZE; index -= 1) {
    const line = all[index]!.trim();
    if (line.length === 0 || seen.has(line)) continue;
    seen.add(line);
    lines.push(line);
  }
  return lines;
}

/** Reads the history file; rewrites it with the kept lines once it has grown past twice that. */
async function readHistory(file: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return [];
  }
  const history = parseHistory(text);
  if (text.split('\n').length > 2 * HISTORY_SIZE) {
    await writeFile(file, `${[...history].reverse().join('\n')}\n`).catch(() => undefined);
  }
  return history;
}

/** Runs the chat loop until `quit`, end of input, or Ctrl-C twice; resolves with the exit code. */
export async function runRepl(settings: ReplSettings): Promise<number> {
  const { io, historyFile, json } = settings;
  const terminal =
    (io.stdin as { isTTY?: boolean }).isTTY === true &&
    (io.stdout as { isTTY?: boolean }).isTTY === true;
  const history = await readHistory(historyFile);
  await mkdir(dirname(historyFile), { recursive: true }).catch(() => undefined);
  const readline = createInterface({
    input: io.stdin,
    output: io.stdout,
    terminal,
    history,
    historySize: HISTORY_SIZE,
    removeHistoryDuplicates: true,
  });
  // Created at once: lines read before the iterator exists would be lost.
  const lines = readline[Symbol.asyncIterator]();
  readline.setPrompt(json ? '' : '> ');
  let running: AbortController | undefined;
  let interruptedOnce = false;
  let failed = false;
  const onInterrupt = (): void => {
    if (running) {
      running.abort();
      io.stderr.write('\n(cancelled)\n');
      return;
    }
    if (readline.line.length > 0) {
      // Clears the line being typed, like a shell.
      readline.write(null, { ctrl: true, name: 'u' });
      interruptedOnce = false;
      return;
    }
    if (interruptedOnce) {
      readline.close();
      return;
    }
    interruptedOnce = true;
    io.stderr.write("\n(To leave, press Ctrl-C again or type 'quit')\n");
    readline.prompt();
  };
  readline.on('SIGINT', onInterrupt);
  const unsubscribe = io.onInterrupt?.(onInterrupt);
  if (!json) io.stdout.write("Ask a question ('quit' to leave, Ctrl-C to cancel an answer).\n");
  try {
    readline.prompt();
    for await (const line of { [Symbol.asyncIterator]: () => lines }) {
      const message = line.trim();
      interruptedOnce = false;
      if (message.length > 0) {
        await appendFile(historyFile, `${message.replace(/[\r\n]+/g, ' ')}\n`).catch(
          () => undefined,
        );
        running = new AbortController();
        try {
          const turn = await settings.ask(message, running.signal);
          if (turn.ended) return failed ? 1 : 0;
          if (turn.failure && turn.failure.code !== 'aborted') failed = true;
        } finally {
          running = undefined;
        }
      }
      readline.prompt();
    }
    return failed ? 1 : 0;
  } finally {
    unsubscribe?.();
    readline.close();
  }
}
