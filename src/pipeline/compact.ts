import type { EngineRuntime } from './turn.js';
/**
 * The compact stage: chat profiles, the pure compaction plan, the summarising call and the
 * context view of a long conversation.
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
import * as z from 'zod/mini';
import { AbortError, ConfigError } from '../errors/index.js';
import type { MessageRecord, SessionRecord } from '../ports/chat-records.js';
import type { LLMMessage, LLMProvider } from '../ports/llm-provider.js';
import type { SessionStore } from '../ports/session-store.js';
import type { Tokenizer } from '../ports/tokenizer.js';
import { intRange } from '../util/schema.js';
import type { SummaryPosition } from './prompt.js';
import { isoNow, ulid } from '../util/ids.js';

/** How a conversation is kept within bounds (seed 001's chat profiles). */
export interface ChatProfile {
  /** History tokens (uncovered messages + the current summary) above which compaction runs. */
  readonly thresholdTokens: number;
  /** Turns (user messages) of uncovered history above which compaction runs. */
  readonly maxTurns: number;
  /** Most tokens of a summary: the summarising call's `maxTokens`, and the stored cap. */
  readonly summaryTokens: number;
  /** Tokens of the context budget reserved for conversation memory (summary + recent turns). */
  readonly reservedTokens: number;
  /**
   * The model that writes the summaries, by its name in the engine's `models` (seed 001's
   * `summarization_model`). Default: the model answering the session.
   */
  readonly summarizationModel?: string | undefined;
  /** Whether the summary goes into the model's context at all (default true; it is stored either way). */
  readonly includeSummaryInContext: boolean;
  /** Where the summary goes in the system prompt (default `before_retrieval`, as in seed 001). */
  readonly summaryPosition: SummaryPosition;
}

/** The built-in profiles: `default`, `long_context` and `compact` (seed 001's numbers). */
export const CHAT_PROFILES: Readonly<Record<'default' | 'long_context' | 'compact', ChatProfile>> =
  Object.freeze({
    default: Object.freeze({
      thresholdTokens: 2000,
      maxTurns: 10,
      summaryTokens: 500,
      reservedTokens: 800,
      includeSummaryInContext: true,
      summaryPosition: 'before_retrieval',
    }),
    long_context: Object.freeze({
      thresholdTokens: 4000,
      maxTurns: 20,
      summaryTokens: 800,
      reservedTokens: 1500,
      includeSummaryInContext: true,
      summaryPosition: 'before_retrieval',
    }),
    compact: Object.freeze({
      thresholdTokens: 1000,
      maxTurns: 5,
      summaryTokens: 300,
      reservedTokens: 500,
      includeSummaryInContext: true,
      summaryPosition: 'before_retrieval',
    }),
  });

/** Name of the profile used when none is chosen. */
export const DEFAULT_CHAT_PROFILE = 'default';

/**
 * Schema of one custom chat profile (the token and turn fields required, unknown keys
 * rejected). A `summarizationModel` must name one of the engine's `models` (checked when the
 * engine is created).
 */
export const chatProfileSchema = z
  .strictObject({
    /** History tokens above which compaction runs. */
    thresholdTokens: intRange(100, 1_000_000),
    /** Turns of uncovered history above which compaction runs. */
    maxTurns: intRange(2, 10_000),
    /** Most tokens of a summary. */
    summaryTokens: intRange(16, 100_000),
    /** Tokens reserved for conversation memory in the context. */
    reservedTokens: intRange(0, 1_000_000),
    /** The summariser, by name in the engine's `models` (default: the session's model). */
    summarizationModel: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
    /** Put the summary into the model's context (default true). */
    includeSummaryInContext: z._default(z.boolean(), true),
    /** Where the summary goes in the system prompt. */
    summaryPosition: z._default(
      z.enum(['before_retrieval', 'after_retrieval']),
      'before_retrieval',
    ),
  })
  .check(
    z.refine((profile) => profile.summaryTokens < profile.thresholdTokens, {
      message: 'must be below thresholdTokens (a summary must fit under the threshold)',
      path: ['summaryTokens'],
    }),
  );

/**
 * Schema of the `compaction` config section: the engine's default profile and custom
 * profiles (which may also override a built-in one by name). A session may name another
 * profile; unknown names are rejected here and by {@link resolveChatProfile}.
 */
export const compactionConfigSchema = z.prefault(
  z
    .strictObject({
      /** Compact long conversations at all (false: history is only cut to the budget). */
      enabled: z._default(z.boolean(), true),
      /** Profile used by sessions that name none. */
      profile: z._default(z.string().check(z.minLength(1)), DEFAULT_CHAT_PROFILE),
      /** Custom profiles by name. */
      profiles: z._default(z.record(z.string().check(z.minLength(1)), chatProfileSchema), {}),
    })
    .check(
      z.refine(
        (section) => section.profile in CHAT_PROFILES || section.profile in section.profiles,
        {
          message: 'names no built-in or custom profile',
          path: ['profile'],
        },
      ),
    ),
  {},
);

/** The `compaction` config section with defaults applied. */
export type CompactionConfig = z.output<typeof compactionConfigSchema>;

/**
 * The profile named `name` (default: the section's `profile`); custom profiles win over
 * built-in ones of the same name. Throws `ConfigError` for an unknown name.
 */
export function resolveChatProfile(
  config: Pick<CompactionConfig, 'profile' | 'profiles'> | undefined,
  name?: string | undefined,
): ChatProfile {
  const wanted = name ?? config?.profile ?? DEFAULT_CHAT_PROFILE;
  const custom = config?.profiles[wanted];
  if (custom) return custom;
  if (Object.hasOwn(CHAT_PROFILES, wanted)) {
    return CHAT_PROFILES[wanted as keyof typeof CHAT_PROFILES];
  }
  const known = [...Object.keys(CHAT_PROFILES), ...Object.keys(config?.profiles ?? {})];
  throw new ConfigError(`Unknown chat profile '${wanted}' (known: ${known.join(', ')})`, [
    { path: 'compaction.profile', message: `names no profile: '${wanted}'` },
  ]);
}

/** The chat workflow spec's summarisation prompt. */
export const SUMMARY_PROMPT =
  'Summarize conversation so far highlighting user goals, resolved questions, outstanding issues, and relevant source ids. Keep <= 180 tokens.';

/** System instructions of the summarising call. */
export const SUMMARY_SYSTEM =
  'You write the running summary of a conversation for a retrieval-augmented assistant. ' +
  'The summary replaces the older messages in its memory, so keep facts, numbers, decisions and ' +
  'document ids; drop pleasantries. Write plain text without citation tags.';

// Tokens a chat format spends per message on role and separators (as pack.ts counts them).
const MESSAGE_OVERHEAD = 4;

/** Tokens a stored message costs in the context. */
export function messageTokens(
  message: Pick<MessageRecord, 'content'>,
  tokenizer: Tokenizer,
): number {
  return tokenizer.count(message.content) + MESSAGE_OVERHEAD;
}

/** What compaction would do to a session's uncovered history. */
export interface CompactionPlan {
  /** Whether history is over the profile's token threshold or turn limit. */
  readonly needed: boolean;
  /** Which limit was crossed (tokens first), or null. */
  readonly reason: 'tokens' | 'turns' | null;
  /** Tokens of the uncovered history, the current summary included. */
  readonly historyTokens: number;
  /** Turns (user messages) in the uncovered history. */
  readonly turns: number;
  /** The newest uncovered summary, folded into the next one. */
  readonly previousSummary: MessageRecord | null;
  /** Whole older turns to summarise, oldest first (empty: nothing can be summarised). */
  readonly summarize: readonly MessageRecord[];
  /** Recent turns kept verbatim, oldest first. */
  readonly keep: readonly MessageRecord[];
}

/** Splits messages into turns: each starts at a user message; anything before the first is its own group. */
function groupTurns(messages: readonly MessageRecord[]): MessageRecord[][] {
  const groups: MessageRecord[][] = [];
  for (const message of messages) {
    const current = groups[groups.length - 1];
    if (message.role === 'user' || current === undefined) groups.push([message]);
    else current.push(message);
  }
  return groups;
}

/**
 * Decides whether and what to compact. `messages` are the session's uncovered messages in
 * insertion order (the current summary among them). Pure.
 *
 * History counts every uncovered message plus the newest summary (its own tokens count). When
 * it exceeds `thresholdTokens` or has more than `maxTurns` turns, the plan keeps the most
 * recent half of the turns (at least the last 2 user turns), and while more than 2 kept turns
 * exceed half the threshold, hands the oldest kept turn to the summary too — so the history
 * after compaction (summary ≤ `summaryTokens` + kept turns) is back under the threshold and
 * compaction does not run again every turn. Turns are whole: a user message and its answer
 * are never split.
 */
export function planCompaction(
  messages: readonly MessageRecord[],
  profile: ChatProfile,
  tokenizer: Tokenizer,
): CompactionPlan {
  let previousSummary: MessageRecord | null = null;
  const conversation: MessageRecord[] = [];
  for (const message of messages) {
    if (message.coveredBy) continue;
    if (message.role === 'system-summary') previousSummary = message;
    else conversation.push(message);
  }
  // Older uncovered summaries (none in a consistent store) are folded like turns.
  const olderSummaries = messages.filter(
    (message) =>
      message.role === 'system-summary' && !message.coveredBy && message !== previousSummary,
  );
  const historyTokens = [
    ...conversation,
    ...olderSummaries,
    ...(previousSummary ? [previousSummary] : []),
  ].reduce((sum, message) => sum + messageTokens(message, tokenizer), 0);
  const groups = groupTurns(conversation);
  const turns = conversation.filter((message) => message.role === 'user').length;
  const reason =
    historyTokens > profile.thresholdTokens ? 'tokens' : turns > profile.maxTurns ? 'turns' : null;
  const none: CompactionPlan = {
    needed: reason !== null,
    reason,
    historyTokens,
    turns,
    previousSummary,
    summarize: [],
    keep: conversation,
  };
  if (reason === null) return none;

  // Index of the group holding the second-to-last user message: never summarised.
  const userGroups = groups
    .map((group, index) => (group[0]?.role === 'user' ? index : -1))
    .filter((index) => index >= 0);
  const protectedFrom = userGroups.length >= 2 ? userGroups[userGroups.length - 2]! : 0;
  let keepFrom = Math.min(protectedFrom, groups.length - Math.ceil(groups.length / 2));
  const groupTokens = groups.map((group) =>
    group.reduce((sum, message) => sum + messageTokens(message, tokenizer), 0),
  );
  let keptTokens = groupTokens.slice(keepFrom).reduce((sum, tokens) => sum + tokens, 0);
  while (keepFrom < protectedFrom && keptTokens > profile.thresholdTokens / 2) {
    keptTokens -= groupTokens[keepFrom]!;
    keepFrom++;
  }
  const summarize = [...olderSummaries, ...groups.slice(0, keepFrom).flat()];
  if (summarize.length === 0) return none;
  return { ...none, summarize, keep: groups.slice(keepFrom).flat() };
}

/** What the model sees of a session's history this turn. */
export interface ContextHistory {
  /** The current summary's text, or null. */
  readonly summary: string | null;
  /** The summary message, or null. */
  readonly summaryMessage: MessageRecord | null;
  /** Recent messages, oldest first, without the summary and the current message. */
  readonly messages: readonly MessageRecord[];
  /** Ids left out of the context because compaction is due but did not happen (failed or off). */
  readonly droppedIds: readonly string[];
}

/**
 * The context view of uncovered history: the summary apart (it goes first, whatever its
 * insertion position), the current user message left out (it is sent once, never twice), and
 * — when compaction is due but no summary replaced the old turns (the summariser failed or
 * compaction is off) — the turns a summary would have covered dropped from the context only.
 * Pure; the caller still packs the result under the token budget.
 */
export function selectContext(
  uncovered: readonly MessageRecord[],
  profile: ChatProfile,
  tokenizer: Tokenizer,
  currentMessageId: string | null,
): ContextHistory {
  const candidates = uncovered.filter((message) => message.id !== currentMessageId);
  const plan = planCompaction(candidates, profile, tokenizer);
  const dropped = new Set(plan.summarize.map((message) => message.id));
  const messages = candidates.filter(
    (message) =>
      message.role !== 'system-summary' && !message.coveredBy && !dropped.has(message.id),
  );
  const summaryMessage = plan.previousSummary;
  return {
    summary: summaryMessage?.content ?? null,
    summaryMessage,
    messages,
    droppedIds: [...dropped].filter((id) => id !== summaryMessage?.id),
  };
}

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

/** Where a stored assistant message's sources came from, for the summariser. */
function sourceNote(message: MessageRecord): string {
  const ids = [...new Set(message.sources.map((source) => source.documentId))];
  return ids.length === 0 ? '' : `\n(Sources: ${ids.join(', ')})`;
}

/**
 * The summarising request's messages: the previous summary, then the turns to summarise as
 * they were said, then the instruction (last, so the model summarises rather than answers).
 */
export function summaryMessages(
  plan: Pick<CompactionPlan, 'previousSummary' | 'summarize'>,
  prompt: string = SUMMARY_PROMPT,
): LLMMessage[] {
  const messages: LLMMessage[] = [];
  if (plan.previousSummary) {
    messages.push({
      role: 'user',
      content: `Earlier in this conversation: ${plan.previousSummary.content}`,
    });
  }
  for (const message of plan.summarize) {
    // Guard answers are boilerplate: the question they answered is what matters.
    if (message.content.trim().length === 0 || message.guard) continue;
    if (message.role === 'assistant') {
      messages.push({ role: 'assistant', content: message.content + sourceNote(message) });
    } else if (message.role === 'system-summary') {
      messages.push({ role: 'user', content: `Earlier in this conversation: ${message.content}` });
    } else {
      messages.push({ role: 'user', content: message.content });
    }
  }
  messages.push({ role: 'user', content: prompt });
  return messages;
}

/** The longest whitespace-word prefix of `text` within `maxTokens` (works with any tokenizer). */
export function cutToTokens(text: string, maxTokens: number, tokenizer: Tokenizer): string {
  if (tokenizer.count(text) <= maxTokens) return text;
  const parts = text.split(/(?<=\s)(?=\S)/);
  let low = 0;
  let high = parts.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (tokenizer.count(parts.slice(0, middle).join('').trimEnd()) <= maxTokens) low = middle;
    else high = middle - 1;
  }
  return parts.slice(0, low).join('').trimEnd();
}

/**
 * The summary with a `Sources: …` line naming the covered answers' document ids that it does
 * not mention yet (the spec asks for "relevant source ids"; small models and the offline
 * provider often drop them), all within `maxTokens`.
 */
export function withSourceIds(
  summary: string,
  plan: Pick<CompactionPlan, 'summarize' | 'previousSummary'>,
  maxTokens: number,
  tokenizer: Tokenizer,
): string {
  const ids = new Set<string>();
  // Ids a previous summary named carry over.
  const previous = /^Sources: (.+)\.$/m.exec(plan.previousSummary?.content ?? '');
  for (const id of previous?.[1]?.split(', ') ?? []) if (id) ids.add(id);
  for (const message of plan.summarize) {
    for (const source of message.sources) ids.add(source.documentId);
  }
  const missing = [...ids].filter((id) => !summary.includes(id));
  const line = missing.length === 0 ? '' : `\nSources: ${missing.join(', ')}.`;
  const room = maxTokens - (line ? tokenizer.count(line) : 0);
  if (room < Math.min(16, maxTokens / 2)) return cutToTokens(summary, maxTokens, tokenizer);
  return `${cutToTokens(summary, room, tokenizer)}${line}`;
}

/** Citation tags have no meaning outside the turn that produced them. */
function cleanSummary(text: string): string {
  return text
    .replace(/\s*\[\s*source\s*:[^\]]*\]/gi, '')
    .replace(/^\s*(?:summary\s*:)\s*/i, '')
    .trim();
}

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

/** Summarises older turns when the history crosses the profile's threshold. */
export async function compactSession(
  runtime: Pick<
    EngineRuntime,
    'config' | 'events' | 'sessionStore' | 'llm' | 'models' | 'tokenizer'
  >,
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
