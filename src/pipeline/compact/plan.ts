/**
 * The pure compaction plan: what of a session's uncovered history is over the profile's
 * limits, which whole older turns a summary would cover and which recent ones stay, and the
 * context view of that history this turn.
 */
import type { MessageRecord } from '../../ports/chat-records.js';
import type { Tokenizer } from '../../ports/tokenizer.js';
import type { ChatProfile } from './profiles.js';

// Tokens a chat format spends per message on role and separators (as pack.ts counts them).
const MESSAGE_OVERHEAD = 4;

// Counts of frozen records (a store that hands out its immutable records, such as the memory
// store): every turn of a session plans over the same history, so each message is counted
// once per tokenizer. Weak keys: a record forgotten by its store is forgotten here.
const frozenCounts = new WeakMap<Tokenizer, WeakMap<object, number>>();

/** Tokens a stored message costs in the context. */
export function messageTokens(
  message: Pick<MessageRecord, 'content'>,
  tokenizer: Tokenizer,
): number {
  if (!Object.isFrozen(message)) return tokenizer.count(message.content) + MESSAGE_OVERHEAD;
  let counts = frozenCounts.get(tokenizer);
  if (counts === undefined) {
    counts = new WeakMap();
    frozenCounts.set(tokenizer, counts);
  }
  let tokens = counts.get(message);
  if (tokens === undefined) {
    tokens = tokenizer.count(message.content) + MESSAGE_OVERHEAD;
    counts.set(message, tokens);
  }
  return tokens;
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
