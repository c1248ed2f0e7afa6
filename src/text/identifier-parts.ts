/**
 * The parts of identifiers written in camelCase or PascalCase, as the offline model reads a
 * unit: `chunkSize` → chunk, size; `MockAgent` → mock, agent; `parseURL(…)` → parse, url.
 * snake_case, kebab-case and dotted names need nothing here: `_`, `-` and `.` already end a
 * word. A question that spells the name as words ("the default chunk size") is then answered by
 * the unit that names it. Round 8's `identifiers` measured the same cut for the keyword index
 * (its rules, not merged there: docs/benchmarks.md, "identifiers"); here it is read as ASCII,
 * character by character, since identifiers in code are ASCII.
 *
 * A word is cut where a lower-case letter is followed by a capital, and only when the parts
 * read as words, which names of biology and chemistry do not:
 *
 * * every part has at least three letters, or is a two-letter function word (`isEmpty`,
 *   `onClick`, `indexOf`): `iPhone`, `mRNA`, `siRNA`, `NFkB`, `HeLa`, `TatAd`, `HbA1c` and
 *   random mixed-case tokens (base64) stay whole;
 * * a part after the first that is not a capitalised word (an acronym: `URL`, `RNAs`) is cut
 *   off only where the word is written as code, a call or a property (`parseURL(`, `.toJSON`,
 *   `el.innerHTML`): in prose `microRNA`, `lncRNA` and `pppRNA` are one name.
 *
 * Pure and deterministic.
 */
import { STOP_WORDS } from './english.js';

/** A lower-case letter followed by a capital: where a camelCase word is. */
const CASE_CHANGE = /[a-z][A-Z]/g;
/** Code before a word: a property access (`obj.`, `).`, `].`). */
const CODE_BEFORE = /[\p{L}\p{N}_$)\]]\.$/u;
/** Code after a word: a call or a property access. */
const CODE_AFTER = /^(?:\(|\.[\p{L}_$])/u;

const isLower = (code: number): boolean => code >= 0x61 && code <= 0x7a;
const isUpper = (code: number): boolean => code >= 0x41 && code <= 0x5a;
const isWordCharacter = (code: number): boolean =>
  isLower(code) || isUpper(code) || (code >= 0x30 && code <= 0x39);

/** Whether a part reads as a word: three letters or more, or a two-letter function word. */
function wordLike(part: string): boolean {
  let letters = 0;
  for (let index = 0; index < part.length; index++) {
    const code = part.charCodeAt(index);
    if (isLower(code) || isUpper(code)) letters++;
  }
  return letters >= 3 || (letters === 2 && STOP_WORDS.has(part.toLowerCase()));
}

/** Whether a part is a capitalised word (a capital, then a lower-case letter). */
function capitalised(part: string): boolean {
  return isUpper(part.charCodeAt(0)) && isLower(part.charCodeAt(1));
}

/** Whether the word from `start` to `end` is written as code. */
function writtenAsCode(text: string, start: number, end: number): boolean {
  return (
    CODE_AFTER.test(text.slice(end, end + 2)) ||
    CODE_BEFORE.test(text.slice(Math.max(0, start - 2), start))
  );
}

/** Whether a text may name a camelCase identifier: a lower-case letter followed by a capital. */
export function hasCaseChange(text: string): boolean {
  CASE_CHANGE.lastIndex = 0;
  return CASE_CHANGE.test(text);
}

/**
 * The lower-cased parts of the camelCase words of a text, in order. Empty for a text without a
 * lower-case letter followed by a capital, the common case, found with one scan.
 */
export function identifierParts(text: string): string[] {
  if (!hasCaseChange(text)) return [];
  const parts: string[] = [];
  // From each case change, out to the ends of its word; the next search starts after the word.
  CASE_CHANGE.lastIndex = 0;
  for (let found = CASE_CHANGE.exec(text); found !== null; found = CASE_CHANGE.exec(text)) {
    let start = found.index;
    while (start > 0 && isWordCharacter(text.charCodeAt(start - 1))) start--;
    let end = found.index + 2;
    while (end < text.length && isWordCharacter(text.charCodeAt(end))) end++;
    CASE_CHANGE.lastIndex = end;
    const pieces: string[] = [];
    let from = start;
    for (let at = start + 1; at < end; at++) {
      if (isLower(text.charCodeAt(at - 1)) && isUpper(text.charCodeAt(at))) {
        pieces.push(text.slice(from, at));
        from = at;
      }
    }
    pieces.push(text.slice(from, end));
    if (!pieces.every(wordLike)) continue;
    const acronym = pieces.some((piece, index) => index > 0 && !capitalised(piece));
    if (acronym && !writtenAsCode(text, start, end)) continue;
    for (const piece of pieces) parts.push(piece.toLowerCase());
  }
  return parts;
}
