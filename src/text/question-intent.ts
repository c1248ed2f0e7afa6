/**
 * What a question about technical documentation asks for, read from its own words, and whether
 * a text holds it: a how-to wants the command or code, "which / what are" the list or table
 * rows, a default, limit or range the value, "what is X" the defining sentence, and a question
 * for an API's name the identifier. Shared by the offline model (which unit to quote) and the
 * confidence score (an answer that lacks what was asked is never `high`).
 */

import { trimEnds } from '../util/trim-trailing.js';

/** What a question asks for. */
export type Intent = 'how-to' | 'list' | 'value' | 'definition' | 'api';

const HOW_TO =
  /^\s*(?:how\s+(?:do|can|should|would|could|to|does\s+one)\b|how\s+(?:is|are)\s+\S.{0,200}?\b(?:set|configured|done|used|declared|defined|enabled|disabled)\b|(?:show|give)\s+(?:me\s+)?(?:an?\s+)?(?:example|snippet|code)\b)/i;
const VALUE =
  /\b(?:default(?:s|ed)?|limit|maximum|minimum|max|min|range|ranges|timeout|threshold|version|port|size)\b/i;
const LIST =
  /^\s*(?:which|what)\s+(?:\S+\s+){0,2}?\S*[^sui\s]s\s+(?:are|do|does|can|will|should|is)\b|^\s*what\s+are\s+the\b|\blist\s+(?:of\s+)?(?:the\s+|all\s+)?\S+s\b/i;
const API =
  /^\s*(?:which|what)\s+(?:\S+\s+)?(?:function|method|class|option|flag|command|event|property|hook|api|setting|field|interceptor|helper|utility|constructor|call)s?\b|\bwhat\s+is\s+(?:the\s+)?(?:name\s+of|called)\b/i;
const DEFINITION_HEAD = /^\s*what\s+(?:is|are)\s+(?=\S)(?:an?\s+(?=\S)|the\s+(?=\S))?/i;

/**
 * The term of a "what is X?" question: what follows the head, without the trailing white
 * space and question mark, of 1–60 characters. Trimmed by `trimEnd`, not by a pattern: a term
 * pattern followed by /\s*$/ retried every split of a long run of white space.
 */
function definitionTerm(question: string): string | undefined {
  const head = DEFINITION_HEAD.exec(question);
  if (head === null) return undefined;
  let term = question.slice(head[0].length).trimEnd();
  if (term.endsWith('?')) term = term.slice(0, -1).trimEnd();
  return term.length === 0 || term.length > 60 || term.includes('?') ? undefined : term;
}
// "What is the error code of X", "what is the default …": a property of something, not a term.
const PROPERTY_OF = /\s(?:of|for|in)\s|\bdefault\b/i;

const YES_NO = /^\s*(?:does|do|is|are|can|could|will|would|should|has|have|was|were|did)\s/i;

/** The intents a question shows, most specific first. */
export function intentsOf(question: string): Intent[] {
  const intents: Intent[] = [];
  // A yes/no question ("Does it have a timeout?") is answered by a statement, not a value.
  if (YES_NO.test(question)) return intents;
  if (API.test(question)) intents.push('api');
  if (VALUE.test(question)) intents.push('value');
  if (HOW_TO.test(question)) intents.push('how-to');
  if (LIST.test(question) && !intents.includes('api')) intents.push('list');
  const subject = definitionTerm(question);
  if (intents.length === 0 && subject !== undefined && !PROPERTY_OF.test(subject)) {
    intents.push('definition');
  }
  return intents;
}

/** The subject of a "what is X" question, if it is one. */
export function definedSubject(question: string): string | undefined {
  const subject = definitionTerm(question)?.trim();
  return subject === undefined || PROPERTY_OF.test(` ${subject} `) ? undefined : subject;
}

// A value: a number, a literal in code style, a "Default: x" clause, a version or range.
export const VALUE_TEXT =
  /\d|\bdefaults?\s*(?::|to\b|is\b)|\b(?:true|false|null|undefined|infinity|none)\b|[<>]=?|:=|\[[^\][\n]{0,200}\]/i;
// An identifier as an API names it: a call, a dotted path, camelCase, a flag.
const IDENTIFIER =
  /\b[A-Za-z_$][\w$]{0,60}\s*\(|\b[A-Za-z_$][\w$]{0,60}\.[A-Za-z_$]|\b[a-z]{1,60}[A-Z]|(?:^|\s)--?[a-z]/;
// A shell command or code line quoted in prose.
export const COMMAND =
  /(?:^|\s)(?:npm|npx|yarn|pnpm|node|git|curl)\s+\S|\b[A-Za-z_$][\w$.]{0,60}\([^)\n]{0,200}\)/;

// An instruction in prose: a sentence opening with a verb in its base form and its object
// ("Scan the QR code", "Click Settings"), or a "by doing" clause.
const INSTRUCTION =
  /(?:^|[.!?:][ \t\n]{1,4}|\n[ \t]{0,8}(?:[-*+•][ \t]{1,4}|\d{1,3}[.)][ \t]{1,4})?)(?!(?:The|This|That|These|Those|It|There|They|We|He|She|What|When|Where|Which|Who|If|In|On|For|With|As|At|Of|And|But|Or|Not|No|Yes)\s)[A-Z][a-z]{1,15}(?<!s)\s+(?:the|a|an|your|its|this|that|these|those|it|them|one|each|all|[A-Z][\w-]{0,40}|[a-z_$][\w$]{0,40}\.(?=[A-Za-z_$]))\b|\bby\s+(?:[a-z]{2,20}ly\s+)?[a-z]{2,20}ing\b/;

/** Whether a text gives an instruction in prose (an imperative sentence, "by doing"). */
export function givesInstruction(text: string): boolean {
  return INSTRUCTION.test(text);
}

/** Whether a text names an API identifier. */
export function namesIdentifier(text: string): boolean {
  return IDENTIFIER.test(text);
}

/**
 * The literal tokens of a question, as written: version ranges (`^0.2.3`), identifiers with
 * dots, parentheses, dashes or inner capitals (`Set-Cookie`, `keepAliveTimeout`, `.option()`).
 * A unit that contains one exactly is about exactly what was asked.
 */
export function questionLiterals(question: string): string[] {
  const literals = new Set<string>();
  for (const raw of question.split(/\s+/)) {
    const token = raw.endsWith('.')
      ? trimEnds(raw, '`\'"“‘(', '').slice(0, -1)
      : trimEnds(raw, '`\'"“‘(', '`\'"”’),;:?!');
    if (token.length < 3) continue;
    if (
      /[\^~<>=]|\d\.\d|[A-Za-z]\.[A-Za-z]|\(\)|[a-z][A-Z]|[A-Za-z]-[A-Za-z]|^--?[a-z]|^\d{3,}$/.test(
        token,
      )
    ) {
      literals.add(token.toLowerCase());
    }
  }
  return [...literals];
}

// A fenced code block, an indented list of at least two items, or a table row.
const CODE_BLOCK = /^[ \t]*(?:```|~~~)/m;
// A list item's line (two of them, at most one blank line apart, make a list: `hasListLines`).
const LIST_LINE = /^[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]+\S/;
const BLANK_LINE = /^[ \t]*$/;
const ROW = /^[ \t]*\|.*\|/m;

/** Whether a whole answer holds what the intent asks for (see `intentsOf`). */
export function answerHolds(answer: string, intent: Intent, subject?: string): boolean {
  switch (intent) {
    case 'how-to':
      return (
        CODE_BLOCK.test(answer) ||
        COMMAND.test(answer) ||
        /`[^`\n]+`/.test(answer) ||
        givesInstruction(answer)
      );
    case 'list':
      return (
        hasListLines(answer) ||
        ROW.test(answer) ||
        / — [^\n]* — /.test(answer) ||
        /\[[^\][\n]{0,200},[^\][\n]{0,200}\]/.test(answer) ||
        (answer.match(/,/g)?.length ?? 0) >= 2
      );
    case 'value':
      return VALUE_TEXT.test(answer);
    case 'api':
      return namesIdentifier(answer);
    case 'definition':
      return subject !== undefined && definesSubject(answer, subject);
  }
}

/** Whether a text states what `subject` is ("X is …", "X lets you …"). */
export function definesSubject(text: string, subject: string): boolean {
  // A subject comes from a question ("what is X"): longer ones are not terms.
  if (typeof subject !== 'string' || subject.length === 0 || subject.length > 60) return false;
  const escaped = subject.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(
    `(?:^|\\b)(?:an?\\s+|the\\s+)?${escaped}\\s*(?:\\([^)]{0,80}\\)\\s*)?(?:is|are|means|refers|represents|describes|lets|allows|provides)\\b`,
    'i',
  ).test(text);
}

/**
 * Whether a text has two list items in a row (at most one blank line between them), line by
 * line: one pattern over the whole text backtracked quadratically on long lines.
 */
function hasListLines(text: string): boolean {
  const lines = text.split('\n');
  for (let index = 0; index < lines.length - 1; index++) {
    if (!LIST_LINE.test(lines[index]!)) continue;
    const next = BLANK_LINE.test(lines[index + 1]!) ? lines[index + 2] : lines[index + 1];
    if (next !== undefined && LIST_LINE.test(next)) return true;
  }
  return false;
}

// A question asks, it states nothing: an earlier question never answers a later one.
const QUESTION_START =
  /^(what|when|where|who|whom|whose|which|why|how|is|are|was|were|do|does|did|can|could|should|would|will|shall|may|might|have|has|had)\b/i;

/** Whether a message is a question rather than a statement (`?`, or an interrogative opening). */
export function isQuestion(text: string): boolean {
  const trimmed = text.trim();
  return /[?？¿]\s*$/.test(trimmed) || QUESTION_START.test(trimmed);
}
