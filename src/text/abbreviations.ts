/**
 * The short forms technical documentation writes for its words, as general knowledge rather
 * than anything mined from a corpus: an acronym and the phrase whose word initials spell it
 * ("CLI" / "command-line interface", "API" / "application programming interface"), and the
 * clipped words of programming prose ("config" / "configuration", "env" / "environment",
 * "repo" / "repository"). A question that writes one form is about the same thing as a source
 * that writes the other; the guard's focus check reads them so (`src/pipeline/guard-focus.ts`).
 *
 * Data and small pure functions; stems are the keyword index's (`stem`).
 */
import { STOP_WORDS, stem } from './english.js';

/**
 * Clipped words of technical prose and the word each stands for (singular; plurals and
 * inflections meet through the stemmer). Only clippings that mean one thing in programming
 * docs: not "min" (minute or minimum), "sec" (second or security), "doc", "lib", "str".
 */
export const ABBREVIATIONS: readonly (readonly [short: string, long: string])[] = [
  ['app', 'application'],
  ['arg', 'argument'],
  ['attr', 'attribute'],
  ['auth', 'authentication'],
  ['auth', 'authorization'],
  ['cert', 'certificate'],
  ['config', 'configuration'],
  ['db', 'database'],
  ['dep', 'dependency'],
  ['dest', 'destination'],
  ['dev', 'development'],
  ['dir', 'directory'],
  ['env', 'environment'],
  ['info', 'information'],
  ['init', 'initialization'],
  ['ms', 'millisecond'],
  ['param', 'parameter'],
  ['pkg', 'package'],
  ['prod', 'production'],
  ['repo', 'repository'],
  ['spec', 'specification'],
  ['temp', 'temporary'],
  ['tmp', 'temporary'],
];

let builtEquivalents: ReadonlyMap<string, readonly string[]> | undefined;

/** Each stem of the table and the stems of its other forms (built on the first call). */
function equivalents(): ReadonlyMap<string, readonly string[]> {
  if (builtEquivalents !== undefined) return builtEquivalents;
  const map = new Map<string, string[]>();
  const add = (from: string, to: string): void => {
    const list = map.get(from) ?? [];
    if (!list.includes(to)) list.push(to);
    map.set(from, list);
  };
  for (const [short, long] of ABBREVIATIONS) {
    add(stem(short), stem(long));
    add(stem(long), stem(short));
  }
  return (builtEquivalents = map);
}

/**
 * The stems that write the same word as `term` (a stem) clipped or in full: "config" →
 * ["configuration"], "environment" → ["env"]; empty for a word the table does not hold.
 */
export function abbreviationStems(term: string): readonly string[] {
  return equivalents().get(term) ?? [];
}

/** A word of letters and digits; `-`, `_`, `.` and spaces end it ("command-line" is two). */
const WORD = /[\p{L}\p{N}]+/gu;

/** The words of a text, in order, as written. */
export function wordsOf(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** The shortest and longest acronym read: two letters ("UI") to six. */
const ACRONYM_LENGTHS: readonly [number, number] = [2, 6];

/** An acronym as written: two to six capitals, then an optional plural "s" ("APIs"). */
function acronymWord(word: string): string | undefined {
  const bare = word.length > 2 && word.endsWith('s') ? word.slice(0, -1) : word;
  if (bare.length < ACRONYM_LENGTHS[0] || bare.length > ACRONYM_LENGTHS[1]) return undefined;
  for (let index = 0; index < bare.length; index++) {
    const code = bare.charCodeAt(index);
    if (code < 0x41 || code > 0x5a) return undefined;
  }
  return bare.toLowerCase();
}

/** The acronyms a text writes in capitals ("CLI", "APIs" → "cli", "api"), lower-cased. */
export function acronymsOf(text: string): Set<string> {
  const found = new Set<string>();
  for (const word of wordsOf(text)) {
    const acronym = acronymWord(word);
    if (acronym !== undefined) found.add(acronym);
  }
  return found;
}

/** A run of words whose initials spell an acronym: the words and the acronym (lower-cased). */
export interface InitialsRun {
  /** The words of the run, as written. */
  readonly words: readonly string[];
  /** Their initials, lower-cased. */
  readonly initials: string;
}

/**
 * The runs of two to six consecutive words of `words` without a stop word among them, with
 * their initials ("command line interface" → "cli", "line interface" → "li", …). A stop word
 * ends a run: acronyms leave out "of" and "the" ("certificate authority" → "ca").
 */
export function initialsRuns(words: readonly string[]): InitialsRun[] {
  const runs: InitialsRun[] = [];
  const [shortest, longest] = ACRONYM_LENGTHS;
  for (let start = 0; start < words.length; start++) {
    let initials = '';
    for (let end = start; end < words.length && end - start < longest; end++) {
      const word = words[end]!;
      if (STOP_WORDS.has(word.toLowerCase())) break;
      initials += word[0]!.toLowerCase();
      if (end - start + 1 >= shortest) {
        runs.push({ words: words.slice(start, end + 1), initials });
      }
    }
  }
  return runs;
}

/**
 * Whether `words` hold a run of consecutive words, none a stop word, whose initials spell
 * `acronym` (lower-case): "cli" in "… the command-line interface …". One pass over the words.
 */
export function spellsAcronym(acronym: string, words: readonly string[]): boolean {
  const length = acronym.length;
  if (length < ACRONYM_LENGTHS[0]) return false;
  let run = 0;
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    run = STOP_WORDS.has(word.toLowerCase()) ? 0 : run + 1;
    if (run < length) continue;
    let spelled = true;
    for (let offset = 0; offset < length && spelled; offset++) {
      const initial = words[index - length + 1 + offset]![0]!.toLowerCase();
      spelled = initial === acronym[offset];
    }
    if (spelled) return true;
  }
  return false;
}
