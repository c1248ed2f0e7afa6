import type { MessageRecord } from '../ports/chat-records.js';

/** A message as session quality sees it. */
export interface QualityMessage {
  /** Who said it. */
  readonly role: MessageRecord['role'];
  /** Overall confidence of an assistant message. */
  readonly confidence?: number | null | undefined;
  /** Feedback rating, once given. */
  readonly rating?: 'good' | 'neutral' | 'bad' | null | undefined;
  /** Number of sources of an assistant message. */
  readonly sourceCount?: number | undefined;
}

/**
 * Session quality in [0, 1] (seed 000 `assessSessionQuality`): starts at 0.5; + 0.2 × share of
 * high-confidence (> 0.7) answers; ± 0.2 × share of good / bad feedback; + up to 0.2 for the
 * mean number of sources per answer (5 or more earns all of it). Unlike the seed, a session
 * without answers does not divide by zero: its source term is 0.
 */
export function assessSessionQuality(messages: readonly QualityMessage[]): number {
  const total = Math.max(messages.length, 1);
  const answers = messages.filter((message) => message.role === 'assistant');
  let quality = 0.5;
  quality += (answers.filter((message) => (message.confidence ?? 0) > 0.7).length / total) * 0.2;
  quality += (messages.filter((message) => message.rating === 'good').length / total) * 0.2;
  quality -= (messages.filter((message) => message.rating === 'bad').length / total) * 0.2;
  if (answers.length > 0) {
    const sources = answers.reduce((sum, message) => sum + (message.sourceCount ?? 0), 0);
    quality += Math.min((sources / answers.length / 5) * 0.2, 0.2);
  }
  return Math.max(0, Math.min(1, quality));
}

/** Reward of a turn before any feedback: its confidence (0 for a guard answer), in [-1, 1]. */
export function turnReward(confidence: number, guard: boolean): number {
  return guard ? 0 : Math.max(-1, Math.min(1, confidence));
}
