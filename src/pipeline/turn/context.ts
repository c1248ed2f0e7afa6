/**
 * What the model will see besides the sources: the conversation's history (remember: the
 * summary and the uncovered recent turns, or a stateless request's own history), the same
 * user's recalled earlier messages, and everything packed under one token budget.
 */
import { readTokenCount } from '../../ingest/prepare.js';
import type { MessageRecord } from '../../ports/chat-records.js';
import { isoNow } from '../../util/ids.js';
import { inSpan, inSpanSync } from '../../util/tracing.js';
import { resolveChatProfile, selectContext } from '../compact.js';
import { packContext } from '../pack.js';
import { buildSystemPrompt } from '../prompt.js';
import { toModelHistory } from '../remember.js';
import type { RecalledMessage } from '../recall.js';
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

/** What a turn recalled, before the guard (seed 004: recalled messages are evidence too). */
export interface TurnRecall {
  /** The recalled messages, best first (none without a session). */
  readonly recalled: readonly RecalledMessage[];
  /** Whether the search failed (the turn goes on without recalled messages). */
  readonly failed: boolean;
  /** Duration of the search, ms. */
  readonly durationMs: number;
}

/** Recalls the same user's earlier messages for a session's turn (none without a session). */
export async function recallTurn(
  turnContext: TurnContext,
  userMessage: MessageRecord | null,
  remembered: Remembered,
  rewrite: RewriteResult,
): Promise<TurnRecall> {
  const { runtime, session, signal, scope } = turnContext;
  const started = performance.now();
  let failed = false;
  const recalled = session
    ? await inSpan(scope, 'cortexis.recall', async (span) => {
        const earlier = await runtime.recall.recall({
          userId: session.userId,
          sessionId: session.id,
          query: rewrite.query,
          excludeIds: [
            ...(userMessage ? [userMessage.id] : []),
            ...remembered.context.messages.map((message) => message.id),
          ],
          signal,
          onFailure: () => (failed = true),
        });
        span?.setAttributes({ 'cortexis.recall.count': earlier.length });
        return earlier;
      })
    : [];
  return { recalled, failed, durationMs: performance.now() - started };
}

/**
 * The `recall` event of a session's turn, then seed 004's `recall.built` / `recall.failed` /
 * `recall.disabled`. `used` are the recalled messages that reached the prompt (as the
 * recalled block or as sources), with their tokens.
 */
export function emitRecall(
  turnContext: TurnContext,
  rewrite: RewriteResult,
  recall: TurnRecall,
  used: readonly { readonly messageId: string; readonly text: string; readonly tokens: number }[],
): void {
  const { runtime, session, turnId } = turnContext;
  const { config, events } = runtime;
  if (!session) return;
  const recallEvent = {
    turnId,
    sessionId: session.id,
    userId: session.userId,
    enabled: config.recall.enabled,
    failed: recall.failed,
    scope: config.recall.scope,
    messageLength: rewrite.query.length,
    found: recall.recalled.length,
    messageIds: used.map((message) => message.messageId),
    contextTokens: used.reduce((sum, message) => sum + message.tokens, 0),
    contextLength: used.reduce((sum, message) => sum + message.text.length, 0),
    durationMs: recall.durationMs,
  };
  events.emit('recall', recallEvent);
  // seed 004's rag_context_built / rag_search_failed / rag_disabled
  const outcome = !config.recall.enabled ? 'disabled' : recall.failed ? 'failed' : 'built';
  events.emit(`recall.${outcome}`, recallEvent);
}

/**
 * The packed prompt context: history, the retrieved chunks and the recalled messages under one
 * budget; then the `recall` event of a session's turn. Recalled messages that are sources of
 * the turn (`asSources`, their message ids) are not repeated in the recalled block.
 */
export function packTurn(
  turnContext: TurnContext,
  remembered: Remembered,
  rewrite: RewriteResult,
  retrieval: RetrievalResult | null,
  recall: TurnRecall,
  asSources: ReadonlySet<string> = new Set(),
) {
  const { runtime, request, settings, scope } = turnContext;
  const { config } = runtime;
  const { profile, context, history } = remembered;
  const template = settings.systemPrompt ?? config.prompt.system;
  const maxTokens = request.maxTokens ?? settings.maxTokens ?? config.generation.maxTokens;
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
        // The count stored at ingest, when this tokenizer made it: not counted again.
        chunkTokens: (chunk) => readTokenCount(chunk.metadata, runtime.tokenizer.name),
        recalled: recall.recalled.filter((message) => !asSources.has(message.messageId)),
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
  // The recalled messages that reached the prompt: as sources, then in the recalled block.
  const recalled = [
    ...recall.recalled
      .filter(
        (message) =>
          asSources.has(message.messageId) &&
          packed.chunks.some((chunk) => chunk.chunkId === message.messageId),
      )
      .map((message) => ({ ...message, tokens: runtime.tokenizer.count(message.text) })),
    ...packed.recalled,
  ];
  emitRecall(turnContext, rewrite, recall, recalled);
  return { packed, recalled, template, maxTokens };
}

/** What `packTurn` packed. */
export type Packing = ReturnType<typeof packTurn>;
