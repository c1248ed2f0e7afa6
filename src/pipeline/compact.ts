/**
 * The compact stage: compacting a long conversation and `compactSession`, its entry point in a
 * turn. Its parts live in `compact/`: chat profiles and the config schema (`profiles.ts`), the
 * pure compaction plan and context view (`plan.ts`), and the summarising call (`summary.ts`).
 *
 * When a session's history (its uncovered messages plus the current summary, whose own tokens
 * count) exceeds the profile's token threshold or turn limit, the older turns are summarised
 * by the LLM into one `system-summary` message that covers them (and the previous summary);
 * the originals stay in storage, hidden from the context, visible in history. If summarising
 * fails, nothing is stored and the same turns are left out of the *context* only
 * ({@link selectContext} recomputes that every turn until a summary succeeds).
 *
 * @example
 * ```ts
 * const profile = resolveChatProfile(config.compaction);
 * const result = await compact({ sessionStore, llm, tokenizer }, { session, profile });
 * if (result.status === 'summarized') events.emit('summary', { turnId, sessionId: session.id, replacedCount: result.replacedCount, summaryId: result.summaryId });
 * ```
 * @module
 */
import { AbortError } from '../errors/index.js';
import type { MessageRecord, SessionRecord } from '../ports/chat-records.js';
import type { LLMProvider } from '../ports/llm-provider.js';
import type { SessionStore } from '../ports/session-store.js';
import type { Tokenizer } from '../ports/tokenizer.js';
import { isoNow, ulid } from '../util/ids.js';
import { planCompaction, type CompactionPlan } from './compact/plan.js';
import { resolveChatProfile, type ChatProfile, type CompactionConfig } from './compact/profiles.js';
import { cleanSummary, SUMMARY_SYSTEM, summaryMessages, withSourceIds } from './compact/summary.js';

export { selectContext } from './compact/plan.js';
export { compactionConfigSchema, resolveChatProfile } from './compact/profiles.js';

/** What `compact` talks to. */
export interface CompactDeps {
  /** Where the summary is stored. */
  readonly sessionStore: SessionStore;
  /** The summariser. */
  readonly llm: LLMProvider;
  /** Counts history and summary tokens. */
  readonly tokenizer: Tokenizer;
}

/** What to compact. */
export interface CompactInput {
  /** The session (its id and owner name the summary). */
  readonly session: Pick<SessionRecord, 'id' | 'userId'>;
  /** The profile in force. */
  readonly profile: ChatProfile;
  /** The session's uncovered messages, insertion order; loaded from the store when omitted. */
  readonly messages?: readonly MessageRecord[] | undefined;
  /** The summarisation instruction (default {@link SUMMARY_PROMPT}). */
  readonly prompt?: string | undefined;
  /** Cancels the call (then `compact` rejects with `AbortError`). */
  readonly signal?: AbortSignal | undefined;
}

/** The outcome of `compact`. */
export type CompactionResult =
  | {
      /** History is within the profile (or nothing can be summarised); nothing happened. */
      readonly status: 'none';
      /** The plan. */
      readonly plan: CompactionPlan;
    }
  | {
      /** One `system-summary` was stored, covering `plan.summarize` and the previous summary. */
      readonly status: 'summarized';
      /** The plan. */
      readonly plan: CompactionPlan;
      /** The stored summary. */
      readonly summary: MessageRecord;
      /** Its id (for the `summary` event). */
      readonly summaryId: string;
      /** Messages it covers, the previous summary included (for the `summary` event). */
      readonly replacedCount: number;
    }
  | {
      /** Summarising failed: nothing was stored; `droppedIds` leave the context only. */
      readonly status: 'dropped';
      /** The plan. */
      readonly plan: CompactionPlan;
      /** Messages left out of the context (see {@link selectContext}). */
      readonly droppedIds: readonly string[];
      /** Why summarising failed. */
      readonly error: unknown;
    };

/**
 * Compacts a session if its history needs it: asks the LLM for a summary of the planned turns
 * (the previous summary folded in) and stores it with `appendSummary`, which marks the
 * covered messages in the same atomic write. A failing or empty summary stores nothing and
 * returns `status: 'dropped'` (the turns leave the context only). Rejects only when aborted
 * or when the store fails.
 */
export async function compact(deps: CompactDeps, input: CompactInput): Promise<CompactionResult> {
  const { sessionStore, llm, tokenizer } = deps;
  const { session, profile, signal } = input;
  const messages =
    input.messages ??
    (await sessionStore.listMessages(session.id, { uncoveredOnly: true, signal }));
  const plan = planCompaction(messages, profile, tokenizer);
  if (!plan.needed || plan.summarize.length === 0) return { status: 'none', plan };

  let text: string;
  try {
    const result = await llm.generate({
      system: SUMMARY_SYSTEM,
      messages: summaryMessages(plan, input.prompt),
      maxTokens: profile.summaryTokens,
      temperature: 0,
      signal,
    });
    const summaryText = cleanSummary(result.text);
    if (summaryText.length === 0) throw new Error('the summariser returned an empty summary');
    text = withSourceIds(summaryText, plan, profile.summaryTokens, tokenizer);
  } catch (error) {
    if (signal?.aborted) throw new AbortError('Compaction was aborted', { cause: error });
    return {
      status: 'dropped',
      plan,
      droppedIds: plan.summarize.map((message) => message.id),
      error,
    };
  }

  const covers = [
    ...(plan.previousSummary ? [plan.previousSummary.id] : []),
    ...plan.summarize.map((message) => message.id),
  ];
  const summary: MessageRecord = {
    id: ulid(),
    sessionId: session.id,
    userId: session.userId,
    role: 'system-summary',
    content: text,
    status: 'complete',
    createdAt: isoNow(),
    sources: [],
    confidence: null,
    timings: null,
    guard: false,
    metadata: {},
    covers,
  };
  await sessionStore.appendSummary(session.id, summary, { signal });
  return {
    status: 'summarized',
    plan,
    summary,
    summaryId: summary.id,
    replacedCount: covers.length,
  };
}

/** Older turns were summarised into one `system-summary` message (the `summary` event). */
export interface SummaryEvent {
  /** Turn id after which compaction ran. */
  readonly turnId: string;
  /** Session id. */
  readonly sessionId: string;
  /** Messages the summary replaced in the context (they stay in storage). */
  readonly replacedCount: number;
  /** Id of the summary message. */
  readonly summaryId: string;
}

/** Where `compactSession` reports what happened (the engine's event bus fits). */
export interface CompactionEmitter {
  /** A summary was stored. */
  emit(name: 'summary', event: SummaryEvent): unknown;
  /** Summarising failed (the turns left the context only). */
  emit(name: 'error', event: { readonly where: string; readonly error: unknown }): unknown;
}

/** What `compactSession` reads of the engine (the engine's runtime fits). */
export interface CompactSessionRuntime {
  /** The engine settings: only the `compaction` section is read. */
  readonly config: { readonly compaction: CompactionConfig };
  /** Receives the `summary` and `error` events. */
  readonly events: CompactionEmitter;
  /** Where the summary is stored. */
  readonly sessionStore: SessionStore;
  /** The model answering the session; the summariser when the profile names none. */
  readonly llm: LLMProvider;
  /** The engine's named models, for a profile's `summarizationModel`. */
  readonly models: { get(name: string): LLMProvider | undefined };
  /** Counts history and summary tokens. */
  readonly tokenizer: Tokenizer;
}

/** Summarises older turns when the history crosses the profile's threshold. */
export async function compactSession(
  runtime: CompactSessionRuntime,
  session: SessionRecord,
  turnId: string,
): Promise<void> {
  const { config, events } = runtime;
  if (!config.compaction.enabled) return;
  const profile = resolveChatProfile(config.compaction, session.settings.chatProfile);
  // The profile's summariser (checked against `models` when the engine was created).
  const summarizer =
    profile.summarizationModel === undefined
      ? runtime.llm
      : (runtime.models.get(profile.summarizationModel) ?? runtime.llm);
  const result = await compact(
    { sessionStore: runtime.sessionStore, llm: summarizer, tokenizer: runtime.tokenizer },
    { session, profile },
  );
  if (result.status === 'summarized') {
    events.emit('summary', {
      turnId,
      sessionId: session.id,
      replacedCount: result.replacedCount,
      summaryId: result.summaryId,
    });
  } else if (result.status === 'dropped') {
    events.emit('error', { where: 'compact', error: result.error });
  }
}
