/**
 * Resolving a follow-up question against the questions before it, without a model: the one
 * place that decides what a follow-up asks and what it is about. Retrieval's offline rewrite
 * (`src/pipeline/rewrite.ts`) searches for the resolved question, and the offline extractive
 * model answers it (`src/adapters/extractive/follow-up.ts`); a real LLM still reads the user's
 * own words and the conversation.
 *
 * Three rules:
 *
 * 1. **Question fragments.** "And what is the default?", "But, which flag turns it off?": the
 *    fragment after the lead word is the question (a reader of "and which …" finds no question
 *    word at its start, so no idea of what is asked).
 * 2. **Named subjects.** A question that names nothing of its own (no identifier, no
 *    capitalised name, no "the X option") after one that did is about that name ("How do I use
 *    it with Amazon Bedrock?" → "Which environment variables set the region?"). The name is
 *    returned beside the user's words rather than spliced in (but see 3): the words the user
 *    wrote say what is asked and weigh more.
 * 3. **What the follow-up points back at.** In a question that inherits a name, an "it" that
 *    ends the question, a verb's particle or an adverb aside, is the thing acted on ("Which
 *    line do I add to each file for it?", "How do I pause it?", "How do I turn it off?"); so is
 *    a final "that" or "this" ("How do I disable that?"), and "that" or "this" with a kind
 *    anywhere ("Is that option on by default?", "What does this method return?"); an "it"
 *    after "when", "if", "once", "while", "unless" or "whether" is the thing whose state the
 *    question depends on ("What does a{b,c}d match when it is on?"). Each is replaced by the
 *    name, so a reader of the question alone (the extractive model) finds the name among the
 *    user's own words. Other "it"s are left alone (the subject of the question itself: "In
 *    which format does it expect its value?").
 * 4. **A state the follow-up sets.** When the name replaced one of those, turning it off or on
 *    and "it is off/on" are read as the value the docs write: "And what happens to ** when I
 *    turn it off?" → "… when I set globstar to false?", "Which errors are suppressed when it is
 *    off?" → "… when suppressErrors is false?"; documentation states a switch's effect as "If
 *    `false`, …" or "Set to `true` to …", seldom as "off".
 *
 * Measured on `npm run bench:docs` (docs/benchmarks.md, "followups", "followups11",
 * "followups12", "followups14", "followups15").
 * Substituting a bare fragment for its counterpart ("and synchronously?" → "… find files
 * synchronously?"), resolving every "it"/"its", and giving a bare fragment an unnamed subject
 * changed no figure there or lost one, and were dropped.
 *
 * @example
 * ```ts
 * resolveFollowUp('And which flag turns it off?', ['What does the `cache` option do?']);
 * // { question: 'Which flag turns it off?', subject: 'cache' }
 * resolveFollowUp('How do I clear it?', ['What does the `cache` option do?']);
 * // { question: 'How do I clear cache?', subject: 'cache' }
 * ```
 * @module
 */
import { STOP_WORDS, words } from './words.js';
import { isQuestion } from './question-intent.js';

/** A follow-up in standalone form. */
export interface ResolvedFollowUp {
  /**
   * The question without its lead word ("and", "but"), a final "it" read as `subject`; else the
   * user's words.
   */
  readonly question: string;
  /** The name an earlier question asked about, which this one names nothing of its own; or ''. */
  readonly subject: string;
}

// Words that frame a question rather than name its topic; never a topic term.
const FRAMING_WORDS: ReadonlySet<string> = new Set(
  (
    'also else another anything something thing things way ways much many long often soon far ' +
    'take takes taking took get gets got work works working happen happens mean means tell ' +
    'explain describe know need want please thanks thank like make makes made said say says ' +
    'could would should might must may can one ones same such former latter yes ok okay sure ' +
    'really actually just still even ever exactly kind sort lot bit possible able go goes ' +
    'within without per via across among upon true false right wrong'
  ).split(' '),
);

/** Content terms of a text that can name a topic: no stop words, no framing words, no lone digits. */
export function topicTerms(text: string): string[] {
  const terms = new Set<string>();
  for (const word of words(text.replace(/\[\s*source\s*:[^\][]*\]/gi, ' '))) {
    if (STOP_WORDS.has(word) || FRAMING_WORDS.has(word) || /^\d+$/.test(word)) continue;
    if (word.length >= 2) terms.add(word);
  }
  return [...terms];
}

/** `text` trimmed, without its final "?", "." and "!" (a loop: a pattern would rescan runs). */
function withoutEnd(text: string): string {
  let end = text.length;
  while (end > 0 && /[\s?.!]/.test(text[end - 1]!)) end--;
  return text.slice(0, end).trim();
}

// "And what is …?", "But, which …?": a lead word, then a question of its own.
const QUESTION_FRAGMENT =
  /^\s*(?:and|but|or|also|so|then|plus)\b[,\s]+((?:what|which|how|where|when|who|whom|whose|why|is|are|was|were|do|does|did|can|could|should|will|would|has|have|may|must)\b[\s\S]*)$/i;
// Words that name what kind of thing a subject is ("the deep *option*").
const KIND =
  'option|options|package|module|library|function|method|class|command|flag|property|event|' +
  'hook|setting|helper|plugin|api|endpoint|header|parameter|argument|variable|field|type|error';
// What may follow the thing acted on at a question's end: a verb's particle ("turn it *off*",
// "set it *up*") or an adverb of the conversation ("pause it *then*", "use it *instead*").
const QUESTION_END =
  '(?:\\s+(?:on|off|up|down|out|back|again|too|then|instead|first|now|later))*[\\s?.!]*$';
// The thing a follow-up points back at: "it", "that" or "this" (option, function, …) as the last
// word of a question, particles aside ("How do I pause it?", "How do I turn it off?", "How do I
// disable that?"); "that"/"this" with a kind anywhere ("What does this method return?"); "it"
// as the subject of a condition ("What does a{b,c}d match when it is on?").
const SUBJECT_REFERENCE = new RegExp(
  `\\b(?:it|(?:that|this)(?:\\s+(?:${KIND}))?)(?=${QUESTION_END})` +
    `|\\b(?:that|this)\\s+(?:${KIND})\\b` +
    '|(?<=\\b(?:when|if|once|while|unless|whether)\\s)it\\b',
  'i',
);
// Rule 4: a switch turned or stated off or on, just before or after the name (a loop-free
// pattern each: one verb, one particle).
const TURNED_BEFORE = /\bturn(?:s|ed|ing)?\s+$/i;
const PARTICLE_AFTER = /^\s+(off|on)\b/i;
const STATE_AFTER = /^\s+(?:is|are)\s+(off|on)\b/i;
const KIND_PHRASE = new RegExp(`\\bthe\\s+([\\w.$@/-]+)\\s+(${KIND})\\b`, 'i');
/**
 * Names a question writes: code identifiers (`a.b`, `fn()`, camelCase, PascalCase, in
 * backticks or not) and capitalised words past the first word, runs kept together ("Amazon
 * Bedrock"). In order of appearance.
 */
export function namedSubjects(question: string): string[] {
  // Each pattern starts a match only where a name can start, so a run is tried once.
  const patterns = [
    /`([^`]+)`/g,
    /(?<![\w$.])(?:[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?:\(\))?|[A-Za-z_$][\w$]*\(\)|[a-z]+[A-Z][\w$]*|[A-Z][a-z0-9]+[A-Z][\w$]*)/g,
    /(?<![\w$-])[A-Z][\w$-]*(?:\s+[A-Z][\w$-]*)*/g,
  ];
  const firstWord = /^\W*\w+/.exec(question)?.[0].length ?? 0;
  const found: { at: number; end: number; rank: number; text: string }[] = [];
  patterns.forEach((pattern, rank) => {
    for (const match of question.matchAll(pattern)) {
      const text = match[1] ?? match[0];
      if (rank === 2 && (match.index < firstWord || text === 'I')) continue;
      found.push({ at: match.index, end: match.index + match[0].length, rank, text });
    }
  });
  // Earlier first, the more specific pattern first at one place; a name inside another is dropped.
  found.sort((a, b) => a.at - b.at || a.rank - b.rank);
  const names: string[] = [];
  let covered = 0;
  for (const item of found) {
    if (item.at < covered) continue;
    names.push(item.text);
    covered = item.end;
  }
  return names;
}

/**
 * The name a question is about: its names ("Amazon Bedrock", `braceExpansion`), else the thing
 * "the X option" names ("deep option"); '' when it names nothing.
 */
export function subjectOf(question: string): string {
  const names = namedSubjects(question);
  if (names.length > 0) return names.join(' ');
  const kind = KIND_PHRASE.exec(question);
  return kind ? `${kind[1]} ${kind[2]}` : '';
}

/** The question a fragment asks, capitalised and ending with "?". */
function asQuestion(fragment: string): string {
  const text = withoutEnd(fragment);
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}?`;
}

/**
 * `asked` with the reference to the subject replaced by `subject` (rule 3), a state set on it
 * written as the value (rule 4); `asked` itself when it has no such reference.
 */
function withSubject(asked: string, subject: string): string {
  const reference = SUBJECT_REFERENCE.exec(asked);
  if (reference === null) return asked;
  const before = asked.slice(0, reference.index);
  const after = asked.slice(reference.index + reference[0].length);
  const value = (word: string) => (word.toLowerCase() === 'off' ? 'false' : 'true');
  const turned = TURNED_BEFORE.exec(before);
  const particle = turned ? PARTICLE_AFTER.exec(after) : null;
  if (turned && particle) {
    const rest = after.slice(particle[0].length);
    return `${before.slice(0, turned.index)}set ${subject} to ${value(particle[1]!)}${rest}`;
  }
  const state = STATE_AFTER.exec(after);
  if (state) return `${before}${subject} is ${value(state[1]!)}${after.slice(state[0].length)}`;
  return `${before}${subject}${after}`;
}

/**
 * One follow-up resolved against the previous question (already standalone); null when the
 * message needs nothing from it.
 */
function resolveOne(message: string, previous: string): ResolvedFollowUp | null {
  const fragment = QUESTION_FRAGMENT.exec(message)?.[1];
  const asked = fragment === undefined ? message.trim() : asQuestion(fragment);
  const subject = subjectOf(asked) === '' ? subjectOf(previous) : '';
  // "… for it?", "… when it is on?": the thing acted on or whose state matters, the subject.
  const question = subject === '' ? asked : withSubject(asked, subject);
  if (question === message.trim() && subject === '') return null;
  return { question, subject };
}

/**
 * A follow-up in standalone form (see the module comment), resolved against `previous`: the
 * earlier user messages of the conversation, oldest first, of which only questions count (each resolved against the ones
 * before it, three at most). Null when there is no earlier question or the message needs
 * nothing from it. Pure.
 */
export function resolveFollowUp(
  message: string,
  previous: readonly string[],
): ResolvedFollowUp | null {
  // Only questions are followed up: a statement ("My serial number is QX-7781") names no
  // subject for the questions after it.
  const recent = previous.filter(isQuestion).slice(-3);
  if (recent.length === 0) return null;
  let standalone = recent[0]!;
  for (const next of recent.slice(1)) {
    const resolved = resolveOne(next, standalone);
    // A subject travels with the question it was resolved for.
    standalone =
      resolved === null
        ? next
        : resolved.subject
          ? asQuestion(`${withoutEnd(resolved.question)} (${resolved.subject})`)
          : resolved.question;
  }
  return resolveOne(message, standalone);
}
