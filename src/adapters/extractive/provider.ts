/**
 * The offline `LLMProvider`: it answers by quoting the sentences of the supplied sources that
 * best cover the question, each cited as `[source: S1]`. No network, no model, deterministic —
 * the default when no provider is configured, and the provider tests rely on.
 *
 * @example
 * ```ts
 * const llm = createExtractiveProvider();
 * const result = await llm.generate({
 *   messages: [{ role: 'user', content: 'How long do refunds take?' }],
 *   sources: [{ label: 'S1', text: 'Refunds are issued within 14 days.' }],
 * });
 * result.text; // 'Refunds are issued within 14 days [source: S1].'
 * ```
 * @module
 */
import { ValidationError, throwIfAborted } from '../../errors/index.js';
import type {
  FinishReason,
  LLMProvider,
  LLMRequest,
  LLMResult,
  LLMStreamPart,
  LLMUsage,
} from '../../ports/llm-provider.js';
import type { Tokenizer } from '../../ports/tokenizer.js';
import { sleep } from '../../util/sleep.js';
import {
  type AnswerOptions,
  type ExtractiveAnswerOptions,
  answerOptions,
  NO_ANSWER_TEXT,
  NO_SOURCES_TEXT,
} from './answer.js';
import { composeAnswer } from './compose-answer.js';
import { standaloneRequest } from './follow-up.js';
import { approximateInputTokens, countTokens, limitTokens, splitDeltas } from './tokens.js';

export { NO_ANSWER_TEXT, NO_SOURCES_TEXT } from './answer.js';
export { answerKindOf } from './answer-kind.js';
export { composeAnswer } from './compose-answer.js';
export { splitDeltas } from './tokens.js';
export { stem } from '../../text/stem.js';

/** Settings of `createExtractiveProvider`. */
export interface ExtractiveProviderSettings extends ExtractiveAnswerOptions {
  /** Context window reported in `metadata`. Default 16384. */
  readonly contextWindow?: number | undefined;
  /**
   * Counts output tokens (for `maxTokens` and usage). Without one, tokens are approximated
   * from words: one token per four characters of each word, at least one per word.
   */
  readonly tokenizer?: Tokenizer | undefined;
  /** Pause before each streamed delta, in ms, to make streaming visible in demos. Default 0. */
  readonly delayMs?: number | undefined;
}

/** Provider name in `metadata`. */
export const EXTRACTIVE_PROVIDER = 'extractive';
/** Model id in `metadata`. */
export const EXTRACTIVE_MODEL = 'extractive-v1';

/** Creates the offline extractive provider. */
export function createExtractiveProvider(settings: ExtractiveProviderSettings = {}): LLMProvider {
  const options = resolveSettings(settings);
  const { tokenizer } = settings;
  const contextWindow = settings.contextWindow ?? 16_384;
  const delayMs = settings.delayMs ?? 0;

  const run = (request: LLMRequest): LLMResult => {
    validateRequest(request);
    // A follow-up is answered in its standalone form.
    const answer = composeAnswer(standaloneRequest(request), options);
    const { text, truncated } = limitTokens(answer.text, request.maxTokens, tokenizer);
    const finishReason: FinishReason = truncated ? 'length' : 'stop';
    const usage: LLMUsage = {
      inputTokens: approximateInputTokens(request),
      outputTokens: countTokens(text, tokenizer),
    };
    // Its own refusals are marked, so the turn need not read them from the text.
    const refused = answer.text === NO_ANSWER_TEXT || answer.text === NO_SOURCES_TEXT;
    return {
      text,
      finishReason,
      usage,
      ...(answer.certainty === undefined ? {} : { certainty: answer.certainty }),
      ...(answer.runnerUp === undefined ? {} : { runnerUp: answer.runnerUp }),
      ...(refused ? { refused } : {}),
    };
  };

  return {
    name: EXTRACTIVE_PROVIDER,
    specificationVersion: 'v1',
    metadata: {
      provider: EXTRACTIVE_PROVIDER,
      model: EXTRACTIVE_MODEL,
      type: 'local',
      supportedModels: [EXTRACTIVE_MODEL],
      contextWindow,
      // It only quotes its sources: it cannot rewrite a question or write a free-form summary.
      followsInstructions: false,
    },
    async generate(request) {
      throwIfAborted(request.signal);
      return run(request);
    },
    async *stream(request): AsyncGenerator<LLMStreamPart> {
      throwIfAborted(request.signal);
      const result = run(request);
      for (const delta of splitDeltas(result.text)) {
        if (delayMs > 0) await sleep(delayMs, request.signal);
        throwIfAborted(request.signal);
        yield { type: 'text-delta', text: delta };
      }
      throwIfAborted(request.signal);
      const { finishReason, usage, certainty, runnerUp, refused } = result;
      yield {
        type: 'finish',
        finishReason,
        usage,
        ...(certainty === undefined ? {} : { certainty }),
        ...(runnerUp === undefined ? {} : { runnerUp }),
        ...(refused ? { refused } : {}),
      };
    },
  };
}

function invalid(path: string, message: string): ValidationError {
  return new ValidationError(`Invalid extractive provider settings: ${path} ${message}`, [
    { path, message },
  ]);
}

function resolveSettings(settings: ExtractiveProviderSettings): AnswerOptions {
  const positive = (name: keyof ExtractiveProviderSettings, value: number | undefined): void => {
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
      throw invalid(name, 'must be a positive integer');
    }
  };
  positive('maxSentences', settings.maxSentences);
  positive('maxSummarySentences', settings.maxSummarySentences);
  positive('contextWindow', settings.contextWindow);
  const { minCoverage, delayMs } = settings;
  if (minCoverage !== undefined && !(minCoverage >= 0 && minCoverage <= 1)) {
    throw invalid('minCoverage', 'must be a number from 0 to 1');
  }
  if (delayMs !== undefined && !(delayMs >= 0 && Number.isFinite(delayMs))) {
    throw invalid('delayMs', 'must be a non-negative number');
  }
  return answerOptions(settings);
}

function validateRequest(request: LLMRequest): void {
  if (!Array.isArray(request.messages)) {
    throw new ValidationError('Invalid request: messages must be an array', [
      { path: 'messages', message: 'must be an array' },
    ]);
  }
  const { maxTokens } = request;
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens < 1)) {
    throw new ValidationError('Invalid request: maxTokens must be a positive integer', [
      { path: 'maxTokens', message: 'must be a positive integer' },
    ]);
  }
}
