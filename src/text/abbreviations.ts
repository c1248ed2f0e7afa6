/**
 * Acronyms, as general knowledge rather than anything mined from a corpus: a phrase whose word
 * initials a source writes in capitals is the thing the source names ("command-line interface"
 * / "CLI", "application programming interface" / "API"). A question that writes the phrase is
 * about what the source writes as the acronym; the guard's focus check reads them so
 * (`src/pipeline/guard-focus.ts`).
 *
 * Measured and left out (docs/benchmarks.md, "paraphrase13"): the other direction (an acronym
 * of the question that a source spells out) and a table of clipped words ("config" /
 * "configuration", "env" / "environment", "repo" / "repository"): neither changed an answer,
 * a level or a refusal of `bench:docs` (tune, test) or `bench:trust`.
 *
 * Small pure functions.
 */
import { STOP_WORDS } from './english.js';

/** A word of letters and digits; `-`, `_`, `.` and spaces end it ("command-line" is two). */
const WORD = /[\p{L}\p{N}]+/gu;

/** The words of a text, in order, as written. */
export function wordsOf(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** The shortest and longest acronym read: two letters ("UI") to six. */
const ACRONYM_LENGTHS: readonly [number, number] = [2, 6];

/**
 * An acronym as written: two to six capitals, then an optional plural "s" ("APIs"), as a
 * whole word (no letter or digit either side: not `mRNA`, `2FA` or `ABCDEFGH`).
 */
const ACRONYM = /(?<![\p{L}\p{N}])([A-Z]{2,6})s?(?![\p{L}\p{N}])/gu;

/** The acronyms a text writes in capitals ("CLI", "APIs" → "cli", "api"), lower-cased. */
export function acronymsOf(text: string): Set<string> {
  const found = new Set<string>();
  for (const match of text.matchAll(ACRONYM)) found.add(match[1]!.toLowerCase());
  return found;
}

/**
 * The words of `words` (as written) that lie in a run of two to six consecutive words, without a
 * stop word among them, whose initials are one of `acronyms` (lower-cased): "command line
 * interface" when a source writes "CLI". A stop word ends a run: acronyms leave out "of" and
 * "the" ("certificate authority" → "CA"). At most six runs are tried per word, and nothing is
 * allocated for a run that spells no acronym.
 */
export function wordsSpelledBy(
  words: readonly string[],
  acronyms: ReadonlySet<string>,
): Set<string> {
  const spelled = new Set<string>();
  if (acronyms.size === 0) return spelled;
  const [shortest, longest] = ACRONYM_LENGTHS;
  for (let start = 0; start < words.length; start++) {
    let initials = '';
    for (let end = start; end < words.length && end - start < longest; end++) {
      const word = words[end]!;
      if (STOP_WORDS.has(word.toLowerCase())) break;
      initials += word[0]!.toLowerCase();
      if (end - start + 1 >= shortest && acronyms.has(initials)) {
        for (let index = start; index <= end; index++) spelled.add(words[index]!);
      }
    }
  }
  return spelled;
}
