/**
 * The JSON responses of the OpenAI-compatible routes: a whole (non-streamed) `chat.completion`,
 * the model list of `GET /v1/models`, and what both completion forms share: the `usage`
 * (reported by the model or counted) and the `cortexis` extension field.
 */
import type { Confidence, MessageStatus, Source } from '../ports/chat-records.js';
import type { Tokenizer } from '../ports/tokenizer.js';
import type { ChatResponse, CitationReport, Grounding, Refusal } from '../types.js';
import type { CompletionRequest } from './openai-request.js';

/**
 * The `cortexis` extension field of a completion (and of the streamed chunk carrying
 * `finish_reason`): what an OpenAI completion has no field for.
 */
export interface CortexisCompletionExtension {
  /** Id of the answer (stored in a named conversation; use it for `POST /messages/{id}/feedback`). */
  readonly messageId: string;
  /** The conversation continued or started, or null for a stateless one. */
  readonly conversationId: string | null;
  /** Sources the answer may cite, labelled S1..Sn as in its `[source: Sn]` tags. */
  readonly sources: readonly Source[];
  /** Confidence with its breakdown. */
  readonly confidence: Confidence;
  /** Per-claim grounding of the answer, or null (guard, small talk, judge off). */
  readonly grounding: Grounding | null;
  /** What the answer cited and which tags were removed. */
  readonly citations: CitationReport;
  /** True when guard mode answered (no sufficiently relevant sources). */
  readonly guard: boolean;
  /** Which stage refused to answer (guard, model, judge) and why; null when it answered. */
  readonly refused: Refusal | null;
  /** `complete`, or `degraded` when retrieval failed and the answer has no context. */
  readonly status: MessageStatus;
  /** The model that answered behind the engine. */
  readonly model: string;
  /** Whether `usage` is the model's own count (`reported`) or counted by the handler. */
  readonly usage: 'reported' | 'estimated';
}

/** OpenAI's token usage. */
interface CompletionUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
}

/** Headers of every JSON response of the routes. */
export const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

/** Counts tokens for `usage` when the model reports none. */
export type TokenCounter = () => Promise<Tokenizer>;

/** The completion's `usage`: the model's own count, else counted from the conversation. */
export async function usageOf(
  response: ChatResponse,
  parsed: CompletionRequest,
  tokenizer: TokenCounter,
): Promise<{ usage: CompletionUsage; kind: 'reported' | 'estimated' }> {
  if (response.usage) {
    const { inputTokens, outputTokens } = response.usage;
    return {
      kind: 'reported',
      usage: {
        prompt_tokens: inputTokens,
        completion_tokens: outputTokens,
        total_tokens: inputTokens + outputTokens,
      },
    };
  }
  const counter = await tokenizer();
  const prompt =
    counter.count(parsed.question) +
    parsed.history.reduce((sum, turn) => sum + counter.count(turn.content), 0);
  const completion = counter.count(response.text);
  return {
    kind: 'estimated',
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
    },
  };
}

/** The extension field of a finished turn. */
export function extensionOf(
  response: ChatResponse,
  usage: 'reported' | 'estimated',
): CortexisCompletionExtension {
  return {
    messageId: response.messageId,
    conversationId: response.sessionId,
    sources: response.sources,
    confidence: response.confidence,
    grounding: response.grounding,
    citations: response.citations,
    guard: response.guard,
    refused: response.refused,
    status: response.status,
    model: response.model,
    usage,
  };
}

/** A whole `chat.completion` of a finished turn (`stream` off). */
export async function completionResponse(
  id: string,
  parsed: CompletionRequest,
  response: ChatResponse,
  tokenizer: TokenCounter,
  extraHeaders: Record<string, string>,
): Promise<Response> {
  const { usage, kind } = await usageOf(response, parsed, tokenizer);
  return new Response(
    JSON.stringify({
      id,
      object: 'chat.completion',
      created: Math.floor(Date.parse(response.createdAt) / 1000),
      model: parsed.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: response.text, refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage,
      cortexis: extensionOf(response, kind),
    }),
    { status: 200, headers: { ...JSON_HEADERS, ...extraHeaders } },
  );
}

/** The list of `GET /v1/models`: every model id the routes answer to. */
export function modelListResponse(
  models: readonly string[],
  ownedBy: string,
  created: number,
): Response {
  return new Response(
    JSON.stringify({
      object: 'list',
      data: models.map((id) => ({ id, object: 'model', created, owned_by: ownedBy })),
    }),
    { status: 200, headers: JSON_HEADERS },
  );
}
