/**
 * Reading the request: the last user message, the system prompt's instructions without the
 * data it carries, whether a summary is asked for, and the stemmed content terms of the
 * question (without instruction words, quantity phrases or citation tags).
 */
import type { LLMMessage, PromptSource } from '../../ports/llm-provider.js';
import { stem } from '../../text/stem.js';
import { contentWords } from '../../text/words.js';

/** A request for a summary, in the question or the system prompt's instructions. */
export const SUMMARY_REQUEST = /\bsummar(?:y|ies|i[sz]e[sd]?|i[sz]ing)\b/i;
// Words that say what to do with the answer rather than what it is about.
const INSTRUCTION_WORDS = new Set(
  (
    'explain describe tell please list give show know mean take get need want find ' +
    'document documents source sources text'
  ).split(' '),
);
// Words that name what a summary request is about ("summarise the conversation above"); in
// any other question they are its topic ("how do I route a conversation?").
const SUMMARY_WORDS = new Set('conversation discussion chat above'.split(' '));
// "How long / much / many …", "what time" ask for a quantity; the quantity word is not a topic.
const QUANTITY_QUESTION =
  /\bhow\s+(?:long|much|many|often|soon|far|big|old|fast|quickly)\b|\bwhat\s+time\b/gi;

// Blocks of data the engine's system prompt carries: the sources, the conversation memory.
const DATA_BLOCKS = ['sources', 'conversation_memory'] as const;

/**
 * `text` without its `<sources>…</sources>` and `<conversation_memory>…</conversation_memory>`
 * blocks, found with `indexOf` (a lazy pattern rescanned the rest after each unclosed opening).
 */
function withoutDataBlocks(text: string): string {
  let result = text;
  for (const name of DATA_BLOCKS) {
    const open = `<${name}>`;
    const close = `</${name}>`;
    let out = '';
    let at = 0;
    for (;;) {
      const start = result.indexOf(open, at);
      if (start === -1) break;
      const end = result.indexOf(close, start + open.length);
      if (end === -1) break;
      out += `${result.slice(at, start)} `;
      at = end + close.length;
    }
    result = out + result.slice(at);
  }
  return result;
}

/**
 * The system prompt without the data it carries (the sources, the conversation memory): a
 * source or a memory that mentions summaries does not ask for one.
 */
export function instructionsOf(system: string, sources: readonly PromptSource[]): string {
  let instructions = withoutDataBlocks(system);
  for (const source of sources) instructions = instructions.split(source.text).join(' ');
  return instructions;
}

/** The last message the user wrote: the question. */
export function lastUserMessage(messages: readonly LLMMessage[]): LLMMessage | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]?.role === 'user') return messages[index];
  }
  return undefined;
}

/** A citation tag (`[source: S1]`) in a question or a sentence. */
export const CITATION = /(?<!\s)\s*\[\s*source\s*:[^\][]*\]/gi;

/** Stemmed content terms of the question, without instruction words. */
export function questionTerms(question: string, wantsSummary: boolean): string[] {
  const terms = new Set(
    contentWords(question.replace(CITATION, '').replace(QUANTITY_QUESTION, ' '))
      .filter(
        (word) =>
          !INSTRUCTION_WORDS.has(word) &&
          !(wantsSummary && SUMMARY_WORDS.has(word)) &&
          !word.startsWith('summar'),
      )
      .map(stem),
  );
  return [...terms];
}
