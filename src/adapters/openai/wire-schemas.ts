/**
 * The wire format of OpenAI's responses: minimal, tolerant zod schemas of a chat completion,
 * a stream chunk and an embeddings response, and their mapping to the port's types (finish
 * reason, usage, certainty from token log-probabilities).
 */
import * as z from 'zod/mini';
import type { FinishReason, LLMUsage } from '../../ports/llm-provider.js';

/** Token usage of a completion or of a stream's last chunk. */
const usageSchema = z.nullish(
  z.object({
    prompt_tokens: z.nullish(z.number()),
    completion_tokens: z.nullish(z.number()),
  }),
);

/** Token log-probabilities of a choice, when asked for. */
const logprobsSchema = z.nullish(
  z.object({ content: z.nullish(z.array(z.object({ logprob: z.number() }))) }),
);

/** An error a server sends inside the stream. */
export const streamErrorSchema = z.nullish(
  z.object({
    message: z.nullish(z.string()),
    type: z.nullish(z.string()),
    code: z.nullish(z.union([z.string(), z.number()])),
  }),
);

/** A (non-streamed) chat completion. */
export const completionSchema = z.object({
  choices: z.array(
    z.object({
      message: z.object({ content: z.nullish(z.string()), refusal: z.nullish(z.string()) }),
      finish_reason: z.nullish(z.string()),
      logprobs: logprobsSchema,
    }),
  ),
  usage: usageSchema,
});

/** One chunk of a streamed chat completion. */
export const chunkSchema = z.object({
  choices: z.nullish(
    z.array(
      z.object({
        delta: z.nullish(
          z.object({ content: z.nullish(z.string()), refusal: z.nullish(z.string()) }),
        ),
        finish_reason: z.nullish(z.string()),
        logprobs: logprobsSchema,
      }),
    ),
  ),
  usage: usageSchema,
  error: streamErrorSchema,
});

/** An embeddings response: one vector per input, by index. */
export const embeddingsSchema = z.object({
  data: z.array(z.object({ index: z.number(), embedding: z.array(z.number()) })),
});

/** Maps a Chat Completions `finish_reason` to the port's `FinishReason`. */
export function openAIFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content-filter';
    default:
      return 'other';
  }
}

/** The port's usage of a response's usage (rounded, never negative). */
export function toUsage(usage: z.output<typeof usageSchema>): LLMUsage | undefined {
  if (usage === null || usage === undefined) return undefined;
  return {
    inputTokens: Math.max(0, Math.round(usage.prompt_tokens ?? 0)),
    outputTokens: Math.max(0, Math.round(usage.completion_tokens ?? 0)),
  };
}

/** exp(mean token log-probability), in [0, 1]; undefined without tokens. */
export function certaintyFromLogprobs(logprobs: readonly number[]): number | undefined {
  if (logprobs.length === 0) return undefined;
  let sum = 0;
  for (const value of logprobs) sum += value;
  const certainty = Math.exp(sum / logprobs.length);
  return Number.isFinite(certainty) ? Math.min(1, Math.max(0, certainty)) : undefined;
}
