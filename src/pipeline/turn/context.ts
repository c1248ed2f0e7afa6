/**
 * What the model will see besides the sources: the conversation's history (remember: the
 * summary and the uncovered recent turns, or a stateless request's own history), the same
 * user's recalled earlier messages, and everything packed under one token budget.
 */
import type { MessageRecord } from '../../ports/chat-records.js';
import { isoNow } from '../../util/ids.js';
import { inSpan, inSpanSync } from '../../util/tracing.js';
import { resolveChatProfile, selectContext } from '../compact.js';
import { packContext } from '../pack.js';
import { buildSystemPrompt } from '../prompt.js';
import { toModelHistory } from '../remember.js';
import type { RetrievalResult } from '../retrieve.js';
import type { RewriteResult } from '../rewrite.js';
import type { TurnContext } from './state.js';

/**
 * The earlier turns of a stateless request as unsaved message records, so that the context
 * window, the follow-up rewrite and the prompt treat them exactly like a session's history.
 */
function statelessHistory(
  turns: readonly { readonly role: 'user' | 'assistant'; readonly content: string }[],
  userId: string,
): MessageRecord[] {
  const createdAt = isoNow();
  return turns.map((turn, index) => ({
    id: `history-${index}`,
    sessionId: '',
    userId,
    role: turn.role,
    content: turn.content,
    status: 'complete',
    createdAt,
    sources: [],
    confidence: null,
    timings: null,
    guard: false,
    metadata: {},
  }));
}

/** The last `count` items (none for 0). */
function lastMessages<T>(items: readonly T[], count: number): T[] {
  return count <= 0 ? [] : items.slice(-count);
}

/** The turn's chat profile, and its history as the model will see it. */
export async function rememberTurn(turnContext: TurnContext, userMessage: MessageRecord | null) {
  const { runtime, request, session, settings, signal, scope } = turnContext;
  const { config, sessionStore } = runtime;
  // The request's profile wins for this turn (seed 001 `chat_profile_id`), then the session's.
  const profile = resolveChatProfile(
    config.compaction,
    request.chatProfile ?? settings.chatProfile,
  );
  const userMessageId = userMessage?.id ?? null;
  const { context, history } = await inSpan(scope, 'cortexis.remember', async (span) => {
    const uncovered = session
      ? (
          await sessionStore.listMessages(session.id, {
            uncoveredOnly: true,
            order: 'desc',
            limit: 2 * profile.maxTurns + 8,
            signal,
          })
        ).reverse()
      : statelessHistory(request.history ?? [], request.userId ?? 'anonymous');
    const selected = selectContext(uncovered, profile, runtime.tokenizer, userMessageId);
    // `history.messages` caps the recent messages sent with the turn (seed 002).
    const modelHistory = lastMessages(
      toModelHistory(selected.messages, userMessageId),
      config.history.messages,
    );
    span?.setAttributes({
      'cortexis.history.messages': modelHistory.length,
      'cortexis.history.summary': selected.summary !== null,
    });
    return { context: selected, history: modelHistory };
  });
  return { profile, context, history };
}

/** What `rememberTurn` found. */
export type Remembered = Awaited<ReturnType<typeof rememberTurn>>;

/** The recalled messages and the packed prompt context; the `recall` event of a session's turn. */
export async function recallAndPack(
  turnContext: TurnContext,
  userMessage: MessageRecord | null,
  remembered: Remembered,
  rewrite: RewriteResult,
  retrieval: RetrievalResult | null,
) {
  const { runtime, request, session, settings, signal, scope, turnId } = turnContext;
  const { config, events } = runtime;
  const { profile, context, history } = remembered;
  const recallStarted = performance.now();
  let recallFailed = false;
  const recalled = session
    ? await inSpan(scope, 'cortexis.recall', async (span) => {
        const earlier = await runtime.recall.recall({
          userId: session.userId,
          sessionId: session.id,
          query: rewrite.query,
          excludeIds: [
            ...(userMessage ? [userMessage.id] : []),
            ...context.messages.map((message) => message.id),
          ],
          signal,
          onFailure: () => (recallFailed = true),
        });
        span?.setAttributes({ 'cortexis.recall.count': earlier.length });
        return earlier;
      })
    : [];
  const recallMs = performance.now() - recallStarted;
  const template = settings.systemPrompt ?? config.prompt.system;
  const maxTokens = settings.maxTokens ?? config.generation.maxTokens;
  const packed = inSpanSync(scope, 'cortexis.pack', (span) => {
    const result = packContext(
      {
        contextWindow: runtime.llm.metadata.contextWindow,
        answerTokens: maxTokens,
        system: buildSystemPrompt(template, []),
        message: request.message,
        summary: profile.includeSummaryInContext ? context.summary : null,
        history,
        historyTokens: Math.min(profile.reservedTokens, config.history.maxTokens),
        chunks: retrieval?.chunks ?? [],
        recalled,
        caps: { summary: profile.summaryTokens, recalled: config.recall.maxTokens },
      },
      runtime.tokenizer,
    );
    span?.setAttributes({
      'cortexis.pack.prompt_tokens': result.promptTokens,
      'cortexis.pack.chunks': result.chunks.length,
      'cortexis.pack.dropped_chunks': result.droppedChunks,
      'cortexis.pack.dropped_history': result.droppedHistory,
    });
    return result;
  });
  if (session) {
    const recallEvent = {
      turnId,
      sessionId: session.id,
      userId: session.userId,
      enabled: config.recall.enabled,
      failed: recallFailed,
      scope: config.recall.scope,
      messageLength: rewrite.query.length,
      found: recalled.length,
      messageIds: packed.recalled.map((message) => message.messageId),
      contextTokens: packed.recalled.reduce((sum, message) => sum + message.tokens, 0),
      contextLength: packed.recalled.reduce((sum, message) => sum + message.text.length, 0),
      durationMs: recallMs,
    };
    events.emit('recall', recallEvent);
    // seed 004's rag_context_built / rag_search_failed / rag_disabled
    const outcome = !config.recall.enabled ? 'disabled' : recallFailed ? 'failed' : 'built';
    events.emit(`recall.${outcome}`, recallEvent);
  }
  return { packed, template, maxTokens };
}

/** What `recallAndPack` packed. */
export type Packing = Awaited<ReturnType<typeof recallAndPack>>;
