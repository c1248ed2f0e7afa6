/**
 * The deterministic fallback answer of the chat workflow spec (seed 002, Resilience): when
 * the model cannot be called (circuit open), the turn answers with the opening sentences
 * of each retrieved source and its citation instead of failing. Pure: same sources, same text.
 */
import { splitSentences } from '../text/sentences.js';

/** The spec's fallback template; `{{summary}}` is replaced by one line per source. */
export const DEFAULT_FALLBACK_TEMPLATE =
  'Temporary issue generating response. Here are the relevant documents summary:\n\n{{summary}}';

/** The fallback when no source was retrieved. */
export const DEFAULT_FALLBACK_EMPTY =
  'Temporary issue generating response, and no relevant documents were found to summarize. Please try again in a moment.';

/** A retrieved source as the fallback uses it (a `PromptSource` fits). */
export interface FallbackSource {
  /** The label the answer cites, `S1`..`Sn`. */
  readonly label: string;
  /** The source text. */
  readonly text: string;
  /** Document title, when known. */
  readonly title?: string | undefined;
}

/** Options of {@link fallbackAnswer}. */
export interface FallbackOptions {
  /** Sentences quoted per source (default 2). */
  readonly maxSentences?: number | undefined;
  /** Most characters quoted per source; a longer first sentence is cut at a word (default 240). */
  readonly maxChars?: number | undefined;
  /** Most sources listed, in the given order (default 5). */
  readonly maxSources?: number | undefined;
  /** The answer when there are no sources (default: a short "nothing found" message). */
  readonly empty?: string | undefined;
}

const TAG = /(?<!\s)\s*\[source:[^\][]*\]/gi;

/** A sentence worth quoting: not a heading, a table row or a lone word. */
function isProse(sentence: string): boolean {
  return !/^(#{1,6}\s|\|)/.test(sentence) && sentence.split(/\s+/).length >= 2;
}

/** Cuts `text` to at most `max` characters at a word boundary, marking the cut with `…`. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const slice = text.slice(0, Math.max(1, max - 1));
  const space = slice.lastIndexOf(' ');
  return `${(space > max / 2 ? slice.slice(0, space) : slice).replace(/(?<![\s,;:.-])[\s,;:.-]+$/, '')}…`;
}

/** The opening sentences of a source, without citation tags, bounded in length. */
export function summarizeSource(text: string, maxSentences = 2, maxChars = 240): string {
  const clean = text.replace(TAG, '');
  const sentences = splitSentences(clean).map((span) =>
    span.text
      .replace(/^#{1,6}\s+/, '')
      .replace(/\s+/g, ' ')
      .trim(),
  );
  const prose = sentences.filter(isProse);
  const picked = (prose.length > 0 ? prose : sentences).filter((sentence) => sentence.length > 0);
  let summary = '';
  for (const sentence of picked.slice(0, Math.max(1, maxSentences))) {
    const next = summary === '' ? sentence : `${summary} ${sentence}`;
    if (summary !== '' && next.length > maxChars) break;
    summary = next;
  }
  return cut(summary, maxChars);
}

/**
 * The fallback answer: the template with one line per source — its title, its first
 * sentence or two and its citation `[source: S1]` — or an honest short message when there
 * are no sources. Deterministic.
 *
 * @example
 * fallbackAnswer([{ label: 'S1', title: 'Handbook', text: 'Refunds take 14 days. Ask support.' }]);
 * // "Temporary issue generating response. Here are the relevant documents summary:\n\n- Handbook: Refunds take 14 days. Ask support. [source: S1]"
 */
export function fallbackAnswer(
  sources: readonly FallbackSource[],
  template: string = DEFAULT_FALLBACK_TEMPLATE,
  options: FallbackOptions = {},
): string {
  const lines = sources
    .slice(0, Math.max(1, options.maxSources ?? 5))
    .map((source) => {
      const summary = summarizeSource(source.text, options.maxSentences, options.maxChars);
      if (summary === '') return '';
      const title = source.title?.replace(/\s+/g, ' ').trim();
      return `- ${title ? `${title}: ` : ''}${summary} [source: ${source.label}]`;
    })
    .filter((line) => line !== '');
  if (lines.length === 0) return options.empty ?? DEFAULT_FALLBACK_EMPTY;
  const summary = lines.join('\n');
  return template.includes('{{summary}}')
    ? template.replaceAll('{{summary}}', () => summary)
    : `${template.trimEnd()}\n\n${summary}`;
}
