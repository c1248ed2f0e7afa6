/**
 * Answering what the question asks for: how a unit's score changes with the question's intent
 * (a how-to wants code, a value question a value, …) and its literal tokens; and how a chosen
 * unit is quoted (a lead-in with its block, an
 * API's heading before the sentence under it).
 */
import { stem } from '../../text/stem.js';
import { contentWords } from '../../text/words.js';
import { cite } from './answer.js';
import type { Candidate } from './candidates.js';
import {
  type Intent,
  definedSubject,
  holds,
  intentsOf,
  namesIdentifier,
  questionLiterals,
} from './intent.js';

/** What the question asks for, read once per request. */
export interface QuestionShape {
  readonly intents: readonly Intent[];
  readonly literals: readonly string[];
  readonly subject: string | undefined;
  /** Whether it asks for a default ("what is the default …", "… by default?"). */
  readonly asksDefault?: boolean | undefined;
  /** The stemmed noun a "which …" question asks to name ("prompt" of "Which prompt hides …?"). */
  readonly names?: string | undefined;
}

/** Reads a question's intents, literals and defined subject. */
export function questionShape(question: string): QuestionShape {
  return {
    intents: intentsOf(question),
    literals: questionLiterals(question),
    subject: definedSubject(question),
    asksDefault: DEFAULT_WORD.test(question),
    names: namedKind(question),
  };
}

// "Which prompt …", "In which version …": a preposition may open the question.
const WHICH_NOUN = /^\s*(?:(?:in|on|for|from|at|by|with|to|of|under)\s+)?which\s+([A-Za-z][\w-]*)/i;

/**
 * The stemmed noun after a question's opening "which" ("Which prompt …" → "prompt", "In which
 * version …" → "version").
 */
function namedKind(question: string): string | undefined {
  const noun = WHICH_NOUN.exec(question)?.[1];
  return noun === undefined ? undefined : contentWords(noun).map(stem)[0];
}

// Chosen on the tune half of the docs questions (see docs/benchmarks.md, issue 26).
// A unit holding what the question asks for (code for a how-to, a value, a list, …) scores this
// much more.
export const INTENT_BONUS = 1;
// A unit containing the question's literal tokens (`^0.2.3`, `keepAliveTimeout`) scores up to
// this much more.
export const LITERAL_BONUS = 1;
// A code block quoted for a value question (it documents a default) is weighed by this: prose
// stating the value comes first.
export const CODE_VALUE_WEIGHT = 0.5;

/** Whether the block a sentence introduces belongs in the answer to this question. */
export function quotesBlock(candidate: Candidate, shape: QuestionShape): boolean {
  if (candidate.block === undefined) return false;
  const { intents } = shape;
  if (candidate.blockKind === 'code') {
    return intents.includes('how-to') || intents.includes('api') || listsDefaults(candidate, shape);
  }
  return intents.length > 0 && !intents.includes('definition');
}

/**
 * Whether a lead-in says its code block holds the defaults asked for ("The default values are
 * shown after each option key." over `{ follow: 20, // maximum redirect count … }`): the block
 * is the answer to a question asking for a default.
 */
function listsDefaults(candidate: Candidate, shape: QuestionShape): boolean {
  return shape.asksDefault === true && NAMES_DEFAULTS.test(candidate.text);
}

// A lead-in naming the defaults themselves, not a default thing ("a default command").
const NAMES_DEFAULTS =
  /\bdefaults\b|\bdefault\s+(?:values?|settings?|options?|config(?:uration)?)\b/i;

// A list under this heading (trimmed) is a table of contents: its items name sections, they
// state nothing. One `\s*` only, so a failing match stays linear.
const CONTENTS_HEADING = /^(?:table\s+of\s+contents|contents|toc)\s*:?$/i;

/**
 * Whether a unit may be quoted at all for this question: code only for a how-to or an API, for
 * a default it documents, or when it writes what the question writes (an example of the very
 * call asked about: `semver.valid('a.b.c') // null`); never an entry of a table of contents
 * (it restates the question and points at the section that answers it).
 */
export function quotable(candidate: Candidate, shape: QuestionShape): boolean {
  if (candidate.unit === 'item')
    return !CONTENTS_HEADING.test((candidate.headingText ?? '').trim());
  if (candidate.unit !== 'code') return true;
  if (shape.intents.includes('how-to') || shape.intents.includes('api')) return true;
  if (shape.literals.some((literal) => containsLiteral(candidate.text, literal))) return true;
  // A default documented in code (`@default 5`, `// default: 5`) answers a value question.
  return shape.intents.includes('value') && /\bdefault\b/i.test(candidate.text);
}

/**
 * The terms a unit answers with: its own, its block's when the block is quoted, and a table
 * row's column names when the question names the row's key (it reads the row's cells by their
 * columns: "the default of `initial`" is the `initial` row's Default cell).
 */
export function answerTerms(
  candidate: Candidate,
  shape: QuestionShape,
  terms: readonly string[] = [],
): ReadonlySet<string> {
  const { keyTerms, columnTerms } = candidate;
  if (keyTerms && columnTerms && terms.some((term) => keyTerms.has(term))) {
    return new Set([...candidate.terms, ...columnTerms]);
  }
  // A list's items and a table's rows are units of their own; code is not.
  if (!candidate.blockTerms || candidate.blockKind !== 'code' || !quotesBlock(candidate, shape)) {
    return candidate.terms;
  }
  return new Set([...candidate.terms, ...candidate.blockTerms]);
}

const DEFAULT_WORD = /\bdefault/i;

/**
 * Whether a unit holds what the question asks for (any of its intents). A value asked for as a
 * default is held by a unit that says it is one: another value of the option (a demo's
 * `concurrency: 1`) is not its default.
 */
export function holdsIntent(candidate: Candidate, shape: QuestionShape): boolean {
  return shape.intents.some(
    (intent) =>
      holds(candidate, intent, shape.subject) &&
      (intent !== 'value' || !shape.asksDefault || statesDefault(candidate)),
  );
}

// A unit's own words saying a value holds unless set otherwise (a code block's comment is a
// demo's value, not the default).
const STATES_DEFAULT = /\bdefault|\bunless\b|\bif\s+(?:not|no|none|omitted|unset)\b|\botherwise\b/i;

function statesDefault(candidate: Candidate): boolean {
  return STATES_DEFAULT.test(candidate.text) || defaultColumn(candidate) !== undefined;
}

/** The position of a table row's "Default" column, if its table has one. */
function defaultColumn(candidate: Candidate): number | undefined {
  const columns = candidate.columns?.split(' — ') ?? [];
  const at = columns.findIndex((name) => /^default(?: value)?$/i.test(name.trim()));
  return at > 0 ? at : undefined;
}

/**
 * The factor a unit's score is multiplied by for this question's shape: raised when it holds
 * what is asked and when it contains the question's literals; a code block quoted for a value
 * question is weighed down.
 */
export function shapeFactor(candidate: Candidate, shape: QuestionShape): number {
  let factor = 1;
  // Code holds a value only as a last resort (a demo's value is not the default): no bonus.
  const held =
    shape.intents.length > 0 &&
    holdsIntent(candidate, shape) &&
    (candidate.unit !== 'code' || shape.intents.some((i) => i === 'how-to' || i === 'api'));
  if (held) factor *= 1 + INTENT_BONUS;
  else if (candidate.unit === 'code') factor *= CODE_VALUE_WEIGHT;
  let found = 0;
  if (shape.literals.length > 0) {
    const own = `${candidate.text}\n${candidate.headingText ?? ''}`;
    for (const literal of shape.literals) {
      if (containsLiteral(own, literal)) found++;
      else if (candidate.blockKind === 'code' && containsLiteral(candidate.block!, literal)) {
        found += 0.5;
      }
    }
    factor *= 1 + (LITERAL_BONUS * found) / shape.literals.length;
  }
  return factor;
}

/** A chosen unit as the answer quotes it, with its citation. */
export function quoteUnit(candidate: Candidate, shape: QuestionShape): string {
  const label = candidate.label;
  const heading = candidate.headingText ?? '';
  if (candidate.unit === 'code') {
    const lead = heading ? `${heading} ` : '';
    return `${lead}[source: ${label ?? ''}]:\n\n${candidate.text}`.replace(/^ +/, '');
  }
  let text = candidate.text;
  const wantsName = shape.intents.includes('api') || shape.intents.includes('how-to');
  if (
    wantsName &&
    candidate.firstUnderHeading &&
    heading !== '' &&
    namesIdentifier(heading) &&
    !text.toLowerCase().includes(identifierOf(heading).toLowerCase())
  ) {
    text = `${heading}: ${text}`;
  } else if (namedByHeading(candidate, shape)) text = `${heading}: ${text}`;
  // A lead-in ending with a colon says nothing without what it introduces: its block is quoted
  // whatever the question asks ("Time it takes to load (average of 3 runs):" and the timings).
  const introduces = candidate.block !== undefined && /:\s*$/.test(candidate.text);
  if (!introduces && !quotesBlock(candidate, shape)) return cite(text, label);
  // The lead-in ends with a colon: the block is what it introduces (the judge reads it so).
  const lead = cite(text.replace(/[:.]\s*$/, ''), label).replace(/[.!?…]$/, '');
  return `${lead}:\n\n${candidate.block}\n`;
}

/**
 * Whether a unit is named by its heading for a "which …" question: it opens a section whose
 * heading is a thing of the kind asked for ("Which prompt …?" → "### Invisible Prompt") and
 * does not name it itself.
 */
function namedByHeading(candidate: Candidate, shape: QuestionShape): boolean {
  const heading = candidate.headingText ?? '';
  if (shape.names === undefined || !candidate.firstUnderHeading || heading === '') return false;
  if (candidate.text.toLowerCase().includes(heading.toLowerCase())) return false;
  return contentWords(heading).map(stem).includes(shape.names);
}

/** The identifier a heading names (`getSetCookies` of `getSetCookies(headers)`). */
function identifierOf(heading: string): string {
  return (
    /[A-Za-z_$][\w$.]*/.exec(heading.replace(/^(?:new|class:?|method:?)\s+/i, ''))?.[0] ?? heading
  );
}

/** Whether a text contains a literal as a whole token (`~1.2.3` is not in `~1.2.3-beta.2`). */
export function containsLiteral(text: string, literal: string): boolean {
  const haystack = text.toLowerCase().replace(/`/g, '');
  const word = /[\p{L}\p{N}_]/u;
  for (let at = haystack.indexOf(literal); at !== -1; at = haystack.indexOf(literal, at + 1)) {
    const before = haystack[at - 1] ?? ' ';
    const after = haystack[at + literal.length] ?? ' ';
    const afterNext = haystack[at + literal.length + 1] ?? ' ';
    const continues = word.test(after) || after === '-' || (after === '.' && word.test(afterNext));
    if (!word.test(before) && !continues) return true;
  }
  return false;
}

/** The sentence saying what an answer lacks, for the question's first intent. */
export function lacksSentence(intent: Intent): string {
  switch (intent) {
    case 'how-to':
      return 'The sources do not show a command or code for this.';
    case 'value':
      return 'The sources do not state the value asked for.';
    case 'list':
      return 'The sources do not list them.';
    case 'api':
      return 'The sources do not name the function or option.';
    case 'definition':
      return 'The sources do not define it.';
  }
}
