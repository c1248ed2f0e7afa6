/**
 * A turn's generation: the system prompt and messages, the model call with citations validated
 * on the way (streamed or not), a fallback answer from the sources while the circuit breaker
 * is open, the generate span's attributes and the `metrics` event.
 */
import type { Source } from '../../ports/chat-records.js';
import type { TraceAttributes } from '../../ports/tracer.js';
import { CircuitOpenError } from '../../resilience/errors.js';
import { fallbackAnswer } from '../../resilience/fallback.js';
import { inSpan, type StageOptions } from '../../util/tracing.js';
import { validateCitations } from '../cite.js';
import { generateAnswer, sourceName } from '../generate.js';
import { buildTurnPrompt } from '../prompt.js';
import type { RewriteResult } from '../rewrite.js';
import type { Packing, Remembered } from './context.js';
import { observeModel, providerRateLimitEvent, retryEvent } from './observe.js';
import { toPromptSources } from './sources.js';
import type { TurnContext } from './state.js';

/** Generates the turn's answer from its packed context and sources. */
export async function generateTurnAnswer(
  turnContext: TurnContext,
  packing: Packing,
  profile: Remembered['profile'],
  rewrite: RewriteResult,
  sources: Source[],
) {
  const {
    runtime,
    request,
    settings,
    signal,
    scope,
    turnSpan,
    turnId,
    sessionId,
    streaming,
    sink,
  } = turnContext;
  const { config, events } = runtime;
  const { packed, template, maxTokens } = packing;
  const generationStarted = performance.now();
  const promptSources = toPromptSources(packed.chunks, sources);
  const llm = runtime.llm.withContext({
    conversationId: sessionId,
    hooks: {
      onRetry: (event) => events.emit('retry', retryEvent(turnId, event, sessionId)),
      onRateLimit: (event) =>
        events.emit('rateLimit', providerRateLimitEvent(turnId, event, sessionId)),
    },
  });
  const temperature = request.temperature ?? settings.temperature ?? config.generation.temperature;
  const includeCitations = settings.includeCitations ?? config.citations.includeCitations;
  const { metadata } = runtime.llm;
  let outcome = await inSpan(
    scope,
    scope ? `chat ${metadata.model}` : '',
    async (span) => {
      const { system, sourcesMessage } = buildTurnPrompt(
        template,
        promptSources,
        packed.history.length > 0 ? config.prompt.chat : undefined,
        { block: packed.memory, position: profile.summaryPosition },
      );
      // Recalled messages come first as a fenced user message, never in the system prompt; the
      // sources (document text) too, as a user message right before the question.
      const messages = [
        ...packed.messages,
        { role: 'user' as const, content: sourcesMessage },
        { role: 'user' as const, content: request.message },
      ];
      const content = span && runtime.tracer?.recordContent === true;
      const generated = await generateAnswer(
        span ? observeModel(llm, span, performance.now()) : llm,
        {
          system,
          messages,
          sources: promptSources,
          // The extractive model answers the standalone question, not the bare follow-up.
          ...(rewrite.rewritten ? { retrievalQuery: rewrite.query } : {}),
          maxTokens,
          temperature,
          ...(config.generation.topP === undefined ? {} : { topP: config.generation.topP }),
          signal,
        },
        sources.map((source) => source.id),
        streaming ? (text) => sink({ type: 'text-delta', text }) : undefined,
        {
          removalNote: config.citations.removalNote,
          includeCitations,
          // A model that cites a chunk id (`[source: refunds#0]`) cites its label.
          aliases: new Map(sources.map((source) => [source.chunkId, source.id])),
          // The citation line names each source: title, file name, or "Unknown" (seed 003);
          // without the line (the default), nothing reads the names.
          ...(includeCitations
            ? { names: new Map(sources.map((source) => [source.id, sourceName(source)])) }
            : {}),
        },
      );
      if (span) {
        span.setAttributes({
          'gen_ai.usage.input_tokens': generated.usage?.inputTokens,
          'gen_ai.usage.output_tokens': generated.usage?.outputTokens,
          'cortexis.pack.prompt_tokens': packed.promptTokens,
          'cortexis.citations.removed': generated.citations.removed.length,
          ...(content ? contentAttributes(system, messages, generated.text) : {}),
        });
        if (generated.error && CircuitOpenError.isInstance(generated.error)) {
          span.setAttributes({ 'cortexis.breaker.open': true });
        } else if (generated.error) {
          span.recordError(generated.error);
        }
      }
      return generated;
    },
    (): StageOptions => ({
      kind: 'client',
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': metadata.provider,
        'gen_ai.request.model': metadata.model,
        'gen_ai.conversation.id': sessionId ?? undefined,
        'gen_ai.request.max_tokens': maxTokens,
        'gen_ai.request.temperature': temperature,
        'gen_ai.request.stream': streaming,
        'gen_ai.output.type': 'text',
        'cortexis.stage': 'generate',
        'cortexis.source.count': sources.length,
      },
    }),
  );
  // While the breaker is open the provider is not called: a fallback built from the sources.
  let breakerOpen = false;
  if (outcome.error && CircuitOpenError.isInstance(outcome.error) && outcome.text === '') {
    breakerOpen = true;
    const fallback = fallbackAnswer(promptSources, config.prompt.fallback);
    const validated = validateCitations(
      fallback,
      sources.map((source) => source.id),
    );
    if (streaming) sink({ type: 'text-delta', text: validated.text });
    outcome = {
      text: validated.text,
      answer: validated.text,
      citations: validated.report,
      certainty: undefined,
      usage: undefined,
      error: undefined,
    };
    turnSpan?.setAttributes({ 'cortexis.breaker.open': true });
  }
  const generationMs = performance.now() - generationStarted;
  events.emit('metrics', {
    turnId,
    sessionId,
    phase: 'generate',
    ms: generationMs,
    detail: {
      promptTokens: packed.promptTokens,
      ...(outcome.usage ? { outputTokens: outcome.usage.outputTokens } : {}),
    },
  });
  return { outcome, generationMs, breakerOpen, promptSources };
}

/**
 * The prompt and the answer as GenAI content attributes (JSON strings), for tracers that
 * record content (`recordContent`): never set otherwise.
 */
function contentAttributes(
  system: string,
  messages: readonly { readonly role: string; readonly content: string }[],
  answer: string,
): TraceAttributes {
  const parts = (content: string) => [{ type: 'text', content }];
  return {
    'gen_ai.system_instructions': JSON.stringify(parts(system)),
    'gen_ai.input.messages': JSON.stringify(
      messages.map((message) => ({ role: message.role, parts: parts(message.content) })),
    ),
    'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: parts(answer) }]),
  };
}
