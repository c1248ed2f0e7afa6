/**
 * Resolving a follow-up question against the questions before it, without a model: the one
 * place that decides what an elliptical or pronoun-bearing question stands for. Retrieval's
 * offline rewrite (`src/pipeline/rewrite.ts`) searches with the resolved question, and the
 * offline extractive model answers it (`src/adapters/extractive/follow-up.ts`); a real LLM
 * still reads the user's own words and the conversation.
 *
 * Three rules, in order:
 *
 * 1. **Ellipsis.** "And X?", "What about X?": a fragment X that asks something itself ("and
 *    what is the default?") is the question; a fragment of up to four words ("and
 *    synchronously?", "what about on Windows?") takes the place of its counterpart in the
 *    previous question — the phrase with the same preposition, a word sharing a prefix or
 *    suffix of 4+ letters with it (asynchronously → synchronously, onlyFiles →
 *    onlyDirectories), else a name for a name, else the previous question's last topic word.
 * 2. **Pronouns.** "it", "its", "they", "them", "their", and "this/that option" stand for the
 *    previous question's subject. The subject is returned beside the user's words rather than
 *    spliced in: the words the user wrote say what is asked and weigh more.
 * 3. **Inherited subject.** A question that names nothing of its own (no identifier, no
 *    capitalised name) after one that did ("How do I use it with Amazon Bedrock?" → "Which
 *    environment variables set the region?") is about that name; so is an elliptical one
 *    with two topic words at most ("and what is the default?"), whatever the subject.
 *
 * Measured on `npm run bench:docs` (docs/benchmarks.md, "followups"): only rule 1's question
 * fragments changed a graded answer there; the others change what is retrieved.
 *
 * @example
 * ```ts
 * resolveFollowUp('And synchronously?', ['How do I find files asynchronously?']);
 * // { question: 'How do I find files synchronously?', subject: '', named: false,
 * //   replaced: ['asynchronously'] }
 * ```
 * @module
 */
import { STOP_WORDS, words } from './words.js';

/** A follow-up in standalone form. */
export interface ResolvedFollowUp {
  /** The question with its ellipsis completed, else the user's words. */
  readonly question: string;
  /**
   * What the question is about without naming it: the earlier subject its pronouns stand for,
   * or the one it inherits; '' when it names its own.
   */
  readonly subject: string;
  /** Whether `subject` is a name (an identifier, a capitalised name, "the X option"). */
  readonly named: boolean;
  /** Words of the previous question the follow-up replaced: not to be carried into a search. */
  readonly replaced: readonly string[];
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
  const terms: string[] = [];
  for (const word of words(text.replace(/\[\s*source\s*:[^\][]*\]/gi, ' '))) {
    if (STOP_WORDS.has(word) || FRAMING_WORDS.has(word) || /^\d+$/.test(word)) continue;
    if (word.length < 2 || terms.includes(word)) continue;
    terms.push(word);
  }
  return terms;
}

// "And X?", "But X?", "What about X?", "How about X?": X continues the previous question.
const ELLIPSIS =
  /^\s*(?:(?:and|but|or|also|so|then|plus)\b[,\s]+)?(?:(?:what|how)\s+about\s+)?(.+?)[\s?.!]*$/i;
const LEAD = /^\s*(?:and|but|or|also|so|then|plus|what\s+about|how\s+about)\b/i;
// A fragment that is a question of its own: it starts with a question word or an auxiliary.
const ASKS =
  /^(?:what|which|how|where|when|who|whom|whose|why|is|are|was|were|do|does|did|can|could|should|will|would|has|have|may|must)\b/i;
// Words that name what kind of thing a subject is ("the deep *option*").
const KIND =
  'option|options|package|module|library|function|method|class|command|flag|property|event|' +
  'hook|setting|helper|plugin|api|endpoint|header|parameter|argument|variable|field|type|error';
const KIND_PHRASE = new RegExp(`\\bthe\\s+([\\w.$@/-]+)\\s+(${KIND})\\b`, 'i');
// A pronoun standing for the previous subject ("it is possible" is not one).
const PRONOUN =
  /\b(?:(?:this|that|these|those)\s+(?:option|package|module|library|function|method|class|command|flag|setting|api)s?|it(?!\s+(?:is\s+)?(?:possible|necessary|safe|ok|okay|true|worth)\b)|its|they|them|their)\b/i;
/** Most topic words of an elliptical question that still inherits an unnamed subject. */
const MAX_BARE_TERMS = 2;
const PREPOSITIONS = new Set(
  'on in for with without under from to at by via inside behind over'.split(' '),
);

/**
 * Names a question writes: code identifiers (`a.b`, `fn()`, camelCase, PascalCase, in
 * backticks or not) and capitalised words past the first word, runs kept together ("Amazon
 * Bedrock"). In order of appearance.
 */
export function namedSubjects(question: string): string[] {
  const found: { at: number; text: string }[] = [];
  const add = (at: number, text: string): void => {
    if (found.some((item) => at >= item.at && at < item.at + item.text.length)) return;
    found.push({ at, text });
  };
  for (const match of question.matchAll(/`([^`]+)`/g)) add(match.index, match[1]!);
  const code =
    /[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?:\(\))?|[A-Za-z_$][\w$]*\(\)|\b[a-z]+[A-Z][\w$]*|\b[A-Z][a-z0-9]+[A-Z][\w$]*/g;
  for (const match of question.matchAll(code)) add(match.index, match[0]);
  const firstWord = /^\W*\w+/.exec(question)?.[0].length ?? 0;
  for (const match of question.matchAll(/\b[A-Z][\w$-]*(?:\s+[A-Z][\w$-]*)*/g)) {
    if (match.index < firstWord || match[0] === 'I') continue;
    add(match.index, match[0]);
  }
  return found.sort((a, b) => a.at - b.at).map((item) => item.text);
}

/**
 * The subject of a question: its names ("Amazon Bedrock", `braceExpansion`), else the thing
 * "the X option" names, else its topic words without the verb of a how-to ("How do I create a
 * fastq queue?" → "fastq queue"). `named` says which it was.
 */
export function subjectOf(question: string): { readonly text: string; readonly named: boolean } {
  const names = namedSubjects(question);
  if (names.length > 0) return { text: names.join(' '), named: true };
  const kind = KIND_PHRASE.exec(question);
  if (kind) return { text: `${kind[1]} ${kind[2]}`, named: true };
  const terms = topicTerms(question);
  const howTo = /^\s*how\s+(?:do|can|should|would)\s+(?:i|you|we|one)\b|^\s*how\s+to\b/i;
  const object = howTo.test(question) && terms.length > 1 ? terms.slice(1) : terms;
  return { text: object.join(' '), named: false };
}

/** Length of the longest common prefix and suffix of two lower-cased words. */
function affixOverlap(a: string, b: string): number {
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < a.length &&
    suffix < b.length &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  ) {
    suffix++;
  }
  return Math.max(prefix, suffix);
}

/** Word tokens of a question with their offsets (identifiers kept whole). */
function tokens(text: string): { text: string; at: number }[] {
  return [...text.matchAll(/[\p{L}\p{N}_$][\p{L}\p{N}_$.-]*[\p{L}\p{N}_$]|[\p{L}\p{N}_$]/gu)].map(
    (match) => ({ text: match[0], at: match.index }),
  );
}

const isName = (word: string): boolean => /^[A-Z]|[a-z][A-Z]|[.$_]/.test(word);

/**
 * The previous question with the fragment's counterpart replaced by it, and the words replaced;
 * undefined when no counterpart is found.
 */
function substitute(
  previous: string,
  fragment: string,
): { question: string; replaced: string[] } | undefined {
  const own = tokens(fragment);
  const before = tokens(previous);
  const replaceAt = (
    target: { text: string; at: number },
    by: string,
  ): { question: string; replaced: string[] } => ({
    question: `${previous.slice(0, target.at)}${by}${previous.slice(target.at + target.text.length)}`,
    replaced: [target.text.toLowerCase()],
  });
  // A prepositional fragment ("on Windows") replaces the previous one ("on Linux").
  const head = own[0]?.text.toLowerCase();
  if (head !== undefined && PREPOSITIONS.has(head) && own.length > 1) {
    const at = before.findIndex((token, index) => token.text.toLowerCase() === head && index > 0);
    if (at >= 0 && at + 1 < before.length) {
      const start = before[at]!;
      const rest = before.slice(at + 1);
      const stop = rest.findIndex((token) => PREPOSITIONS.has(token.text.toLowerCase()));
      const last = (stop > 0 ? rest[stop - 1] : rest.at(-1))!;
      const span = previous.slice(start.at, last.at + last.text.length);
      return {
        question: `${previous.slice(0, start.at)}${fragment.trim()}${previous.slice(start.at + span.length)}`,
        replaced: rest.slice(0, stop > 0 ? stop : undefined).map((t) => t.text.toLowerCase()),
      };
    }
  }
  const content = own.filter((token) => !STOP_WORDS.has(token.text.toLowerCase()));
  if (content.length !== 1) return undefined;
  const word = content[0]!.text;
  const lower = word.toLowerCase();
  // A sibling word: a long shared prefix or suffix (asynchronously ↔ synchronously).
  let best: { text: string; at: number } | undefined;
  let bestOverlap = 0;
  for (const token of before) {
    const other = token.text.toLowerCase();
    if (other === lower || STOP_WORDS.has(other)) continue;
    const overlap = affixOverlap(other, lower);
    if (overlap >= 4 && overlap > bestOverlap) {
      best = token;
      bestOverlap = overlap;
    }
  }
  if (best) return replaceAt(best, word);
  // A name for a name (RetryAgent → RetryHandler), else the last topic word (retries → timeouts).
  if (isName(word)) {
    const name = before.find((token, index) => index > 0 && isName(token.text));
    if (name) return replaceAt(name, word);
  }
  const topics = new Set(topicTerms(previous));
  const last = before.filter((token) => topics.has(token.text.toLowerCase())).at(-1);
  return last ? replaceAt(last, word) : undefined;
}

/** The question a fragment asks, capitalised and ending with "?". */
function asQuestion(fragment: string): string {
  const text = fragment.trim().replace(/[\s?.!]+$/, '');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}?`;
}

/**
 * One follow-up resolved against the previous question (already standalone); null when the
 * message needs nothing from it.
 */
function resolveOne(message: string, previous: string): ResolvedFollowUp | null {
  const before = subjectOf(previous);
  let question = message.trim();
  let elliptical = false;
  if (LEAD.test(question)) {
    const fragment = ELLIPSIS.exec(question)?.[1] ?? '';
    if (fragment.length > 0 && ASKS.test(fragment)) {
      question = asQuestion(fragment);
      elliptical = true;
    } else if (fragment.length > 0 && words(fragment).length <= 4) {
      const swapped = substitute(previous, fragment);
      if (swapped) {
        return {
          question: swapped.question,
          subject: '',
          named: false,
          replaced: swapped.replaced,
        };
      }
    }
  }
  const pronouns = PRONOUN.test(question);
  const ownName = namedSubjects(question).length > 0 || KIND_PHRASE.test(question);
  // An elliptical question with words of its own ("and which option returns only
  // directories?") asks something new; a bare one ("and what is the default?") does not.
  const bare = elliptical && topicTerms(question).length <= MAX_BARE_TERMS;
  const inherits = pronouns || (!ownName && (bare || before.named));
  const subject = inherits ? before.text : '';
  if (question === message.trim() && subject === '') return null;
  return { question, subject, named: inherits && before.named, replaced: [] };
}

/**
 * A follow-up in standalone form (see the module comment), resolved against `previous`: the
 * earlier user questions of the conversation, oldest first (each resolved against the ones
 * before it, three at most). Null when there is no earlier question or the message needs
 * nothing from it. Pure.
 */
export function resolveFollowUp(
  message: string,
  previous: readonly string[],
): ResolvedFollowUp | null {
  const recent = previous.filter((text) => text.trim().length > 0).slice(-3);
  if (recent.length === 0) return null;
  let standalone = recent[0]!;
  for (const next of recent.slice(1)) {
    const resolved = resolveOne(next, standalone);
    // A subject travels with the question it was resolved for.
    standalone =
      resolved === null
        ? next
        : resolved.subject
          ? asQuestion(`${resolved.question.replace(/[\s?.!]+$/, '')} (${resolved.subject})`)
          : resolved.question;
  }
  return resolveOne(message, standalone);
}
