/**
 * The summarising call of the compact stage: its prompt and system instructions, the request's
 * messages built from a plan, and the clean-up of the summary (citation tags out, covered
 * source ids in, cut to the token cap).
 */
import type { MessageRecord } from '../../ports/chat-records.js';
import type { LLMMessage } from '../../ports/llm-provider.js';
import type { Tokenizer } from '../../ports/tokenizer.js';
import type { CompactionPlan } from './plan.js';

/** The chat workflow spec's summarisation prompt. */
export const SUMMARY_PROMPT =
  'Summarize conversation so far highlighting user goals, resolved questions, outstanding issues, and relevant source ids. Keep <= 180 tokens.';

/** System instructions of the summarising call. */
export const SUMMARY_SYSTEM =
  'You write the running summary of a conversation for a retrieval-augmented assistant. ' +
  'The summary replaces the older messages in its memory, so keep facts, numbers, decisions and ' +
  'document ids; drop pleasantries. Write plain text without citation tags.';

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

/** The summary text without citation tags or a leading "Summary:". */
export /** Citation tags have no meaning outside the turn that produced them. */
function cleanSummary(text: string): string {
  return text
    .replace(/(?<!\s)\s*\[\s*source\s*:[^\][]*\]/gi, '')
    .replace(/^\s*(?:summary\s*:)\s*/i, '')
    .trim();
}
