/**
 * Follow-up rewriting (LlamaIndex's condense-question, LangChain's history-aware retriever):
 * a follow-up such as "And how long does that take?" means nothing to a search index, so it
 * is rewritten into a standalone search query from recent history before retrieval. With a
 * real LLM, a short condense prompt does it (the output is validated, else the offline rewrite
 * is used); offline, the follow-up is resolved (`src/text/follow-up.ts`: "and what is the
 * default?" asks "what is the default?", a question that names nothing inherits the name
 * asked about before) and a deterministic rewrite carries the salient content terms
 * of the recent user turns (and, sparingly, of the last answer) into the query. Only retrieval
 * uses the rewrite: a model still answers the user's own words (the offline extractive model
 * resolves the same follow-up from the conversation it is given, with the same function).
 *
 * @example
 * ```ts
 * const { query, rewritten, method } = await rewriteQuery({ message, history, llm });
 * const retrieval = await retrieve(query, runtime, options);
 * ```
 * @module
 */
import * as z from 'zod/mini';
import { AbortError } from '../errors/index.js';
import type { LLMMessage, LLMProvider } from '../ports/llm-provider.js';
import { intRange, lazySchema } from '../util/schema.js';
import { resolveFollowUp, topicTerms, type ResolvedFollowUp } from '../text/follow-up.js';
import { words } from '../text/words.js';

/** The query retrieval searches, and how it was made (for the `retrieval` event). */
export interface RewriteResult {
  /** The standalone search query (the message itself when not rewritten). */
  readonly query: string;
  /** Whether `query` differs from the message. */
  readonly rewritten: boolean;
  /** `none` (not a follow-up, or nothing to carry), `offline` (term carrying) or `llm`. */
  readonly method: 'none' | 'offline' | 'llm';
}

/** Schema of the `rewrite` config section (built on the first call). */
export const rewriteConfigSchema = lazySchema(() =>
  z.prefault(
    z.strictObject({
      /** Rewrite follow-up questions before retrieval at all. */
      enabled: z._default(z.boolean(), true),
      /**
       * `auto` (default): the LLM rewrites when the engine's model is not the offline extractive
       * one; `never`: always the deterministic rewrite; `always`: the LLM even when extractive.
       */
      llm: z._default(z.enum(['auto', 'never', 'always']), 'auto'),
      /** Most recent history messages the rewrite reads. */
      historyMessages: z._default(intRange(1, 50), 6),
      /** Most characters of a rewritten query; a longer LLM output falls back to offline. */
      maxQueryLength: z._default(intRange(20, 2000), 300),
    }),
    {},
  ),
);

/** The `rewrite` config section with defaults applied. */
export type RewriteConfig = z.output<ReturnType<typeof rewriteConfigSchema>>;

// "and …", "but …", "what about …": continues the previous question.
const CONTINUATION =
  /^\s*(?:and|but|also|so|or|then|plus|what about|how about|what if|what else|same (?:for|with)|is that|are those|does that|do they|does it|is it)\b/i;
// Words pointing back at something said before.
const ANAPHORA =
  /\b(?:it|its|it's|that|this|those|these|they|them|their|theirs|there|one|ones|same|such|former|latter|he|she|him|her|his|then)\b/i;

/** The user messages of history, newest first. */
function userTurns(history: readonly LLMMessage[]): string[] {
  const turns: string[] = [];
  for (let index = history.length - 1; index >= 0; index--) {
    const message = history[index]!;
    if (message.role === 'user') turns.push(message.content);
  }
  return turns;
}

/**
 * Whether `message` is a follow-up that depends on `history` (oldest first, without the
 * message): there is an earlier user turn, and the message continues it ("and …", "what
 * about …"), or points back at it with few topic terms of its own ("is it free?"), or is a
 * bare short question ("how long?").
 */
export function isFollowUp(message: string, history: readonly LLMMessage[]): boolean {
  if (userTurns(history).length === 0) return false;
  const terms = topicTerms(message);
  if (CONTINUATION.test(message)) return terms.length <= 5;
  const wordCount = words(message).length;
  if (ANAPHORA.test(message) && terms.length <= 2) return true;
  return wordCount <= 5 && terms.length <= 1;
}

/** A resolved follow-up as one text: the question and the name it inherits. */
function standaloneText(resolved: ResolvedFollowUp): string {
  return resolved.subject ? `${resolved.question} ${resolved.subject}` : resolved.question;
}

/** Case-insensitive term sets match a word and its plural. */
function hasTerm(terms: ReadonlySet<string>, term: string): boolean {
  return (
    terms.has(term) || terms.has(`${term}s`) || (term.endsWith('s') && terms.has(term.slice(0, -1)))
  );
}

/** Settings of the offline rewrite. */
export interface OfflineRewriteOptions {
  /** Most terms carried from history. Default 6. */
  readonly maxTerms?: number | undefined;
  /** Most terms carried from the last answer, used only when the user turns give fewer than 2. Default 2. */
  readonly maxAnswerTerms?: number | undefined;
}

/**
 * The deterministic rewrite: a follow-up, resolved by `resolveFollowUp` (its question without
 * the lead word, the name it inherits), gets the topic terms of the previous user turn (and of
 * the one before, when that turn was itself a follow-up) appended, newest first, up to
 * `maxTerms`; only when those give fewer than 2 terms and no name was inherited, up to
 * `maxAnswerTerms` of the last answer's are added. Anything else is returned unchanged
 * (`method: 'none'`). Pure.
 */
export function rewriteOffline(
  message: string,
  history: readonly LLMMessage[],
  options: OfflineRewriteOptions = {},
): RewriteResult {
  const unchanged: RewriteResult = { query: message, rewritten: false, method: 'none' };
  const resolved = resolveFollowUp(message, userTurns(history).reverse());
  if (resolved === null && !isFollowUp(message, history)) return unchanged;
  const maxTerms = options.maxTerms ?? 6;
  const maxAnswerTerms = options.maxAnswerTerms ?? 2;
  const standalone = resolved ? standaloneText(resolved) : message;
  const present = new Set(words(standalone));
  const carried: string[] = [];
  const carry = (terms: readonly string[], limit: number): void => {
    let taken = 0;
    for (const term of terms) {
      if (carried.length >= maxTerms || taken >= limit) return;
      if (hasTerm(present, term)) continue;
      present.add(term);
      carried.push(term);
      taken++;
    }
  };

  // The previous user turn; the one before it too while the turns are follow-ups themselves.
  let followed = 0;
  for (let index = history.length - 1; index >= 0 && followed < 3; index--) {
    const turn = history[index]!;
    if (turn.role !== 'user') continue;
    followed++;
    carry(topicTerms(turn.content), maxTerms);
    if (!isFollowUp(turn.content, history.slice(0, index))) break;
  }
  // A name asked about before is context enough: the last answer's words are a last resort.
  if (carried.length < 2 && !resolved?.subject) {
    const answer = [...history].reverse().find((entry) => entry.role === 'assistant');
    if (answer) {
      const firstSentence = answer.content.split(/(?<=[.!?])\s+/)[0] ?? '';
      carry(topicTerms(firstSentence), maxAnswerTerms);
    }
  }
  const own = topicTerms(standalone);
  if (carried.length === 0 && own.join(' ') === topicTerms(message).join(' ')) return unchanged;
  return { query: [...own, ...carried].join(' '), rewritten: true, method: 'offline' };
}

/** System instructions of the condense call. */
export const CONDENSE_SYSTEM =
  'Rewrite the follow-up question as a standalone search query that can be understood without ' +
  'the conversation. Resolve pronouns and references from the conversation, keep the user’s ' +
  'meaning and language, do not answer it. Reply with the query only, on one line.';

/** The condense call's user message: recent conversation, then the follow-up. */
export function condensePrompt(message: string, history: readonly LLMMessage[]): string {
  const lines = history
    .filter((entry) => entry.role === 'user' || entry.role === 'assistant')
    .map((entry) => {
      const text = entry.content.replace(/\s+/g, ' ').trim();
      const short = text.length > 500 ? `${text.slice(0, 500)}…` : text;
      return `${entry.role === 'user' ? 'User' : 'Assistant'}: ${short}`;
    });
  return `Conversation:\n${lines.join('\n')}\n\nFollow-up question: ${message.trim()}\n\nStandalone query:`;
}

/**
 * The model's condensed query cleaned up (first line, no label, no quotes), or null when it
 * is unusable: empty, longer than `maxLength` characters, or cut off.
 */
export function validateCondensed(text: string, maxLength: number): string | null {
  const line = text
    .split('\n')
    .map((part) => part.trim())
    .find((part) => part.length > 0);
  if (line === undefined) return null;
  const cleaned = line
    .replace(/^(?:standalone\s+)?(?:search\s+)?(?:query|question)\s*:\s*/i, '')
    .replace(/^["'“”‘’`]+|(?<!["'“”‘’`])["'“”‘’`]+$/g, '')
    .trim();
  if (cleaned.length === 0 || cleaned.length > maxLength) return null;
  if (words(cleaned).length === 0) return null;
  return cleaned;
}

/** What `rewriteQuery` needs. */
export interface RewriteInput {
  /** The current user message. */
  readonly message: string;
  /** Recent history, oldest first, without the current message. */
  readonly history: readonly LLMMessage[];
  /** The model to condense with; omitted: the offline rewrite. */
  readonly llm?: LLMProvider | undefined;
  /** Most characters of an LLM-condensed query. Default 300. */
  readonly maxQueryLength?: number | undefined;
  /** Cancels the call (then it rejects with `AbortError`). */
  readonly signal?: AbortSignal | undefined;
}

/**
 * The standalone search query of a turn. A follow-up by `isFollowUp` → the LLM's condensed
 * query when `llm` is given and its output is valid (`llm`). Otherwise, and when the LLM fails,
 * the offline rewrite: a question `resolveFollowUp` resolves (a lead word, a name asked about
 * before) costs no model call (`offline`), anything else is the message (`none`). Never fails
 * except on abort.
 */
export async function rewriteQuery(input: RewriteInput): Promise<RewriteResult> {
  const { message, history, llm, signal } = input;
  if (llm && isFollowUp(message, history)) {
    try {
      const result = await llm.generate({
        system: CONDENSE_SYSTEM,
        messages: [{ role: 'user', content: condensePrompt(message, history) }],
        maxTokens: 64,
        temperature: 0,
        signal,
      });
      const query =
        result.finishReason === 'length'
          ? null
          : validateCondensed(result.text, input.maxQueryLength ?? 300);
      if (query !== null) {
        return { query, rewritten: query !== message.trim(), method: 'llm' };
      }
    } catch (error) {
      if (signal?.aborted) throw new AbortError('The rewrite was aborted', { cause: error });
      // Fall through to the offline rewrite.
    }
  }
  return rewriteOffline(message, history);
}
