/** The measures shared by the peer benchmark's runner and its worker processes. */

/** Turns per conversation; the last one is the "turn 60" measure. */
export const CONVERSATION_TURNS = 60;
/** Conversations per stack and round; turn 60 is their median. */
export const CONVERSATIONS = 5;
export interface WorkerResult {
  readonly stack: string;
  readonly documents: number;
  readonly chunks: number;
  readonly ingestMs: number;
  readonly questions: number;
  /** Untimed first turns before the single-turn measure: 20 test questions, then train claims. */
  readonly warmUpTurns: number;
  readonly turnP50Ms: number;
  readonly turnP99Ms: number;
  /** Latency of turn 1 and of turn `CONVERSATION_TURNS`, per conversation. */
  readonly conversations: readonly { readonly firstMs: number; readonly lastMs: number }[];
  readonly answerSample: string;
}

export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
