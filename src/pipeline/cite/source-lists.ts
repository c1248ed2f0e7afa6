/**
 * Keeps "Sources:" lists out of answers. The application lists the sources it used itself
 * (`response.sources`, validated); a list the model writes is at best a duplicate and at worst
 * copied from a document that planted one — a fake "Sources:" block with a phishing link. A
 * line that opens such a list (`Sources:`, `References:`, `Citations:`, `Bibliography:`, also
 * as a Markdown heading, in bold, or quoted) and the list after it (blank lines, list items,
 * lines holding a link or a URL) are removed; the first other line ends the list and is kept.
 *
 * Streaming: text passes through at once except a line's start while it could still be such
 * a heading, and the lines of a list being removed (each decided at its end).
 */

/** Words that open a list of sources. */
const HEADINGS = ['sources', 'source', 'references', 'citations', 'bibliography'];
// Markdown around a heading word: quote, heading and list markers, emphasis.
const MARKUP = /^[\s>#*_\-+]*/;
// A heading line: the word, then a colon or nothing but markup (`## Sources`, `**Sources:**`).
const HEADING = new RegExp(`^(?:${HEADINGS.join('|')})[\\s*_]*(?::|$)`, 'i');
// A line that belongs to a list of sources: a list item, or a link or URL anywhere.
const LIST_LINE = /^\s*(?:[-*+•]|\d{1,3}[.)]|\[)|\]\(|https?:\/\/|www\./i;

/** Whether `line` (without its newline) opens a list of sources. */
export function isSourceListHeading(line: string): boolean {
  return HEADING.test(line.replace(MARKUP, '').trimEnd());
}

/** Whether the start of a line may still turn out to be a heading when more text comes. */
function mayBecomeHeading(start: string): boolean {
  const word = start.replace(MARKUP, '').toLowerCase();
  if (word.length === 0) return start.length < 40;
  return HEADINGS.some(
    (heading) =>
      heading.startsWith(word) ||
      (word.startsWith(heading) && /^[\s*_]*(?::|$)/.test(word.slice(heading.length))),
  );
}

/** A streaming filter removing "Sources:" lists (see the module comment). */
export interface SourceListFilter {
  /** Takes more model text; returns what is safe to pass on now. */
  push(text: string): string;
  /** At the end of the answer: what was still held back and is kept. */
  flush(): string;
  /** Lines removed so far (headings and list lines). */
  readonly removedLines: number;
}

/** Creates a {@link SourceListFilter}. */
export function createSourceListFilter(): SourceListFilter {
  /** Text of the current line held back (not yet passed on). */
  let held = '';
  /** Whether the current line's start was already passed on (it is no heading). */
  let lineOpen = false;
  /** Inside a list being removed. */
  let inList = false;
  let removedLines = 0;

  /** Decides a whole line (without its newline); returns what to pass on. */
  const decideLine = (line: string, newline: string): string => {
    if (inList) {
      if (line.trim() === '' || LIST_LINE.test(line) || isSourceListHeading(line)) {
        if (line.trim() !== '') removedLines++;
        return '';
      }
      inList = false;
      return line + newline;
    }
    if (isSourceListHeading(line)) {
      inList = true;
      removedLines++;
      return '';
    }
    return line + newline;
  };

  const push = (text: string): string => {
    let out = '';
    let rest = text;
    while (rest.length > 0) {
      const end = rest.indexOf('\n');
      const piece = end < 0 ? rest : rest.slice(0, end);
      rest = end < 0 ? '' : rest.slice(end + 1);
      const newline = end < 0 ? '' : '\n';
      if (lineOpen) {
        // The line's start is out: the rest of it passes (a heading cannot start mid-line).
        out += piece + newline;
        if (newline) lineOpen = false;
        continue;
      }
      held += piece;
      if (newline) {
        out += decideLine(held, newline);
        held = '';
      } else if (!inList && !mayBecomeHeading(held)) {
        out += held;
        held = '';
        lineOpen = true;
      }
    }
    return out;
  };

  return {
    push,
    flush() {
      const line = held;
      held = '';
      lineOpen = false;
      const out = line.length > 0 ? decideLine(line, '') : '';
      inList = false;
      return out;
    },
    get removedLines() {
      return removedLines;
    },
  };
}

/**
 * `text` without its "Sources:" lists: what a model is shown of a document, so that a list a
 * document planted is neither quoted (the extractive model) nor copied (a remote one).
 */
export function stripSourceLists(text: string): string {
  const filter = createSourceListFilter();
  const kept = filter.push(text) + filter.flush();
  return filter.removedLines === 0 ? text : kept;
}
