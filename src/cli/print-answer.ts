/**
 * Printing an answer of the `cortexis` command: a streamed turn as text with its sources and
 * confidence, as JSON lines, or collected into the one JSON object of `ask --json`.
 */
import type { ChatStream } from '../stream.js';
import type { CliIO } from './io.js';
import { answerJson, renderConfidence, renderSources } from './render.js';

/** A failed turn, as the stream's error part carries it. */
interface TurnFailure {
  readonly code: string;
  readonly message: string;
}

/** What printing one answer found. */
export interface PrintedTurn {
  /** The session ended (quit word). */
  readonly ended: boolean;
  /** The turn failed (also when cancelled: code `aborted`). */
  readonly failure: TurnFailure | null;
}

/**
 * Prints a streamed answer: text as it arrives, then the sources (best first) and the
 * confidence line (not after small talk); in `json-lines` mode, each part as a JSON line.
 */
export async function printStream(
  stream: ChatStream,
  io: CliIO,
  mode: 'text' | 'json-lines',
): Promise<PrintedTurn> {
  let route: string | null = null;
  for await (const part of stream) {
    if (mode === 'json-lines') io.stdout.write(`${JSON.stringify(part)}\n`);
    if (part.type === 'route') route = part.route;
    if (part.type === 'error') {
      if (mode === 'text' && part.error.code !== 'aborted') {
        io.stderr.write(`\nError (${part.error.code}): ${part.error.message}\n`);
      }
      return { ended: false, failure: part.error };
    }
    if (part.type === 'done') {
      const { response } = part;
      if (mode === 'text') {
        io.stdout.write('\n\n');
        if (!response.ended && route !== 'small-talk') {
          io.stdout.write(
            `${renderSources(response.sources)}\n${renderConfidence(response.confidence)}\n`,
          );
        }
      }
      return { ended: response.ended, failure: null };
    }
    if (mode === 'text' && part.type === 'text-delta') io.stdout.write(part.text);
  }
  return { ended: false, failure: null };
}

/** Collects a streamed answer into the one JSON object of `ask --json`. */
export async function collectJson(stream: ChatStream): Promise<{
  json: Record<string, unknown>;
  failure: TurnFailure | null;
}> {
  let route: string | null = null;
  for await (const part of stream) {
    if (part.type === 'route') route = part.route;
    if (part.type === 'error') return { json: { error: part.error }, failure: part.error };
    if (part.type === 'done') return { json: answerJson(part.response, route), failure: null };
  }
  const failure = { code: 'internal_error', message: 'the answer stream ended early' };
  return { json: { error: failure }, failure };
}
