/**
 * Names for the contradiction checks of the grounding judge: a name of the claim the source
 * never mentions where a sentence about the claim has another name in its place — next to the
 * same content word (a swapped name), or in a sentence stating all the rest of the claim (a
 * replaced name). Pure.
 * @module
 */
import { STOP_WORDS } from '../../text/words.js';
import {
  ABOUT_SHARE,
  tokensOf,
  type AnalysedSentence,
  type SourceSentence,
} from './contradiction-analysis.js';

const RAW_WORD = /[\p{L}\p{N}][\p{L}\p{N}-]*/gu;
// An acronym or code ("BBB", "Gpr124", "IL-6"): two capitals or digits.
const ACRONYM_LIKE = /^[A-Z](?=(?:[^A-Z0-9]*[A-Z0-9]){1})[A-Za-z0-9-]*$/;
const CAPITALISED = /^[A-Z][a-z]+$/;

/** Whether the word at this position of its sentence names something. */
function isEntity(word: string, position: number): boolean {
  // An all-capital word of six letters or more is a heading ("CONCLUSION"), not a name.
  if (/^[A-Z]{6,}$/.test(word)) return false;
  return (ACRONYM_LIKE.test(word) && word.length >= 2) || (position > 0 && CAPITALISED.test(word));
}

/** Whether the word stands in brackets in the claim: "(BIR)". */
function claimAbbreviation(claim: string, word: string): boolean {
  return claim.includes(`(${word})`);
}

/**
 * A name of the claim the source never mentions, where a sentence about the claim has another
 * name in its place: next to the same content word ("the Berlin office" ↔ "the Utrecht office").
 */
export function swappedEntity<T extends SourceSentence & { share: number }>(
  claim: string,
  sourceText: string,
  spans: readonly T[],
): T | undefined {
  const words = claim.match(RAW_WORD) ?? [];
  const lowerSource = sourceText.toLowerCase();
  // Letters and digits only, to find "Th2" in "T(H)2".
  const compactSource = lowerSource.replace(/[^\p{L}\p{N}]+/gu, '');
  const claimWords = new Set(words.map((word) => word.toLowerCase()));
  // The neighbour that anchors the alignment: a content word, not a name itself.
  const anchor = (position: number): string | undefined => {
    const word = words[position];
    if (word === undefined || isEntity(word, position)) return undefined;
    const lower = word.toLowerCase();
    return STOP_WORDS.has(lower) || /^\d/.test(word) ? undefined : lower;
  };
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    if (!isEntity(word, index)) continue;
    // Found as a whole or by a part ("Sf1-expressing" ↔ "SF1"); an abbreviation in brackets
    // only defines the words before it.
    const parts = word.split('-').filter((part) => part.length >= 2);
    if (parts.some((part) => lowerSource.includes(part.toLowerCase()))) continue;
    if (compactSource.includes(word.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ''))) continue;
    if (claimAbbreviation(claim, word)) continue;
    const before = anchor(index - 1);
    const after = anchor(index + 1);
    const lowerWord = word.toLowerCase();
    const acronym = ACRONYM_LIKE.test(word);
    for (const span of spans) {
      if (span.share < ABOUT_SHARE) continue;
      const sentence = span.text.match(RAW_WORD) ?? [];
      // In a title every word is capitalised: no names to align.
      const capitalised = sentence.filter((token) => /^[A-Z]/.test(token)).length;
      if (capitalised > sentence.length / 2) continue;
      const other = (position: number): boolean => {
        const candidate = sentence[position];
        if (candidate === undefined || !isEntity(candidate, position)) return false;
        const lower = candidate.toLowerCase();
        // A variant spelling ("SRI" for "SSRI") is not another name.
        return !claimWords.has(lower) && !lowerWord.includes(lower) && !lower.includes(lowerWord);
      };
      const found = sentence.some((token, position) => {
        const lower = token.toLowerCase();
        return (
          (before !== undefined && lower === before && other(position + 1)) ||
          (after !== undefined && lower === after && other(position - 1)) ||
          // A sentence stating nearly all the rest of the claim, with another name of the same
          // kind (an acronym for an acronym) the claim does not have.
          (span.share >= SWAP_SHARE && other(position) && ACRONYM_LIKE.test(token) === acronym)
        );
      });
      if (found) return span;
    }
  }
  return undefined;
}

/**
 * A sentence stating the rest of the claim (≥ `REPLACED_SHARE` of its content terms besides
 * the names the source never states) with a name of the same kind the claim does not have:
 * "… much weaker than EBI2 (SciFact …)" against "… much weaker than BGE (SciFact …)".
 */
export function replacedEntity(
  claim: string,
  claimTerms: ReadonlySet<string>,
  novelNames: readonly string[],
  sentences: readonly AnalysedSentence[],
): AnalysedSentence | undefined {
  if (novelNames.length === 0) return undefined;
  const novelTerms = new Set(tokensOf(novelNames.join(' ')).map((token) => token.stem));
  const rest = [...claimTerms].filter((term) => !novelTerms.has(term));
  if (rest.length < REPLACED_MIN_TERMS) return undefined;
  const kinds = new Set(novelNames.map((name) => ACRONYM_LIKE.test(name)));
  let best: { sentence: AnalysedSentence; share: number } | undefined;
  for (const sentence of sentences) {
    let shared = 0;
    for (const term of rest) if (sentence.terms.has(term)) shared++;
    const share = shared / rest.length;
    if (share >= REPLACED_SHARE && (!best || share > best.share)) best = { sentence, share };
  }
  if (!best) return undefined;
  const words = best.sentence.text.match(RAW_WORD) ?? [];
  // In a title every word is capitalised: no names to align.
  if (words.filter((word) => /^[A-Z]/.test(word)).length > words.length / 2) return undefined;
  // The claim's words around each novel name: the other name must stand between the same ones.
  const claimWords = (claim.match(RAW_WORD) ?? []).map((word) => word.toLowerCase());
  const slots = novelNames.flatMap((name) => {
    const at = claimWords.indexOf(name.toLowerCase());
    return at < 0 ? [] : [{ before: claimWords[at - 1], after: claimWords[at + 1] }];
  });
  const other = words.some((word, position) => {
    if (!isEntity(word, position) || !kinds.has(ACRONYM_LIKE.test(word))) return false;
    // (The other name may appear elsewhere in the claim: "than EBI2 … BM25's best hits".)
    const lower = word.toLowerCase();
    if (novelNames.some((name) => name.toLowerCase().includes(lower))) return false;
    const before = words[position - 1]?.toLowerCase();
    const after = words[position + 1]?.toLowerCase();
    return slots.some(
      (slot) =>
        (slot.before !== undefined && slot.before === before) ||
        (slot.after !== undefined && slot.after === after),
    );
  });
  return other ? best.sentence : undefined;
}

/** Least share of the rest of a claim a sentence states to align a replaced name. */
const REPLACED_SHARE = 0.8;
/** Least number of other content terms a claim needs to align a replaced name. */
const REPLACED_MIN_TERMS = 3;
/** Least share of a sentence stating the rest of a claim whose name is swapped. */
const SWAP_SHARE = 0.7;
