/**
 * Progress of the `cortexis` command on stderr while it reads files and indexes documents.
 */
import type { CliIO } from './io.js';
import { progressLine } from './render.js';

function isTerminal(stream: NodeJS.WritableStream): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

/**
 * A progress reporter for stderr (when it is a terminal, or when `forced`): one line
 * rewritten in place on a terminal, else a line per update; at most 5 updates a second,
 * and always the last one.
 */
export function progressWriter(
  io: CliIO,
  forced: boolean,
  label: string,
  unit: string,
): (done: number, total: number) => void {
  const terminal = isTerminal(io.stderr);
  if (!forced && !terminal) return () => undefined;
  const started = Date.now();
  let lastWrite = 0;
  return (done, total) => {
    const now = Date.now();
    const last = done >= total;
    if (!last && now - lastWrite < 200) return;
    lastWrite = now;
    const line = `${label} ${progressLine(done, total, now - started, unit)}`;
    io.stderr.write(terminal ? `\r${line}${last ? '\n' : ''}` : `${line}\n`);
  };
}
