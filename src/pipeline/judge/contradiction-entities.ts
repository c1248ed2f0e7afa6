/**
 * Names for the contradiction checks of the grounding judge: a name of the claim the source
 * never mentions where a sentence about the claim has another name in its place — next to the
 * same content word (a swapped name), in a sentence stating most of the rest of the claim (a
 * replaced name), or in brackets after the same words (a redefined abbreviation) — and a
 * claim naming what the source never states while leaving out the name the source is about
 * (its main name: `support.ts` calls that claim `not_enough_info`). Pure.
 * @module
 */
import { STOP_WORDS } from '../../text/words.js';
import { ruleOff } from './rules.js';
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
  // The source lower-cased, and with letters and digits only (to find "Th2" in "T(H)2"): made
  // for the first name of the claim, most claims having none.
  let lowerSource: string | undefined;
  let compactSource: string | undefined;
  let claimWords: ReadonlySet<string> | undefined;
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
    const lower = (lowerSource ??= sourceText.toLowerCase());
    if (parts.some((part) => lower.includes(part.toLowerCase()))) continue;
    compactSource ??= lower.replace(/[^\p{L}\p{N}]+/gu, '');
    if (compactSource.includes(word.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ''))) continue;
    if (claimAbbreviation(claim, word)) continue;
    const named = (claimWords ??= new Set(words.map((each) => each.toLowerCase())));
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
        return !named.has(lower) && !lowerWord.includes(lower) && !lower.includes(lowerWord);
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

/** Letters and digits only, lower-cased ("T(H)2" → "th2"). */
const compactOf = (text: string): string => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** Whether the letters of `short` appear in order in `long` ("k17" in "krt17"). */
function inOrder(short: string, long: string): boolean {
  let matched = 0;
  for (const character of long) if (character === short[matched]) matched++;
  return matched === short.length;
}

/** Two spellings of one name: one contains the other, or its letters in order ("K17", "KRT17"). */
function variantOf(a: string, b: string): boolean {
  const x = compactOf(a);
  const y = compactOf(b);
  if (x.length < 2 || y.length < 2) return x === y;
  return x.includes(y) || y.includes(x) || inOrder(x, y) || inOrder(y, x);
}

/**
 * A sentence stating the rest of the claim with a name of the same kind (an acronym for an
 * acronym, a capitalised word for one) the claim does not have, in place of a name the source
 * never states: "PTEN is a ligand for CCR7" against "… the second CCR7 ligand, CCL19 …".
 * Either the other name stands between the same words as the claim's (the sentence states
 * ≥ `REPLACED_SHARE` of the rest of the claim: "… much weaker than EBI2" against "… much
 * weaker than BGE"), or, anywhere in the sentence, when it states ≥ `ABSENT_SHARE` of the
 * rest of the claim and no spelling of the claim's name. Roman numerals ("type II") are
 * numbers, not names; a spelling of the same name ("K17" for "KRT17") is no other name.
 */
export function replacedEntity(
  claim: string,
  claimTerms: ReadonlySet<string>,
  novelNames: readonly string[],
  sentences: readonly AnalysedSentence[],
): AnalysedSentence | undefined {
  const names = novelNames.filter((name) => !/^[IVX]+$/.test(name));
  if (names.length === 0) return undefined;
  const novelTerms = new Set(tokensOf(names.join(' ')).map((token) => token.stem));
  const rest = [...claimTerms].filter((term) => !novelTerms.has(term));
  if (rest.length < ABSENT_MIN_TERMS) return undefined;
  const kinds = new Set(names.map((name) => ACRONYM_LIKE.test(name)));
  const claimWords = (claim.match(RAW_WORD) ?? []).map((word) => word.toLowerCase());
  const claimCompact = compactOf(claim);
  // The claim's words around each novel name: with ≥ REPLACED_SHARE, the other name must
  // stand between the same ones.
  const slots = names.flatMap((name) => {
    const at = claimWords.indexOf(name.toLowerCase());
    return at < 0 ? [] : [{ before: claimWords[at - 1], after: claimWords[at + 1] }];
  });
  let best: { sentence: AnalysedSentence; share: number } | undefined;
  for (const sentence of sentences) {
    let shared = 0;
    for (const term of rest) if (sentence.terms.has(term)) shared++;
    const share = shared / rest.length;
    if (share < ABSENT_SHARE || (best && share <= best.share)) continue;
    const words = sentence.text.match(RAW_WORD) ?? [];
    // In a title every word is capitalised: no names to align.
    if (
      !ruleOff['contradiction.title-skip'] &&
      words.filter((word) => /^[A-Z]/.test(word)).length > words.length / 2
    ) {
      continue;
    }
    // A sentence with a spelling of the claim's name states it, not another one.
    if (
      !ruleOff['contradiction.name-spelling'] &&
      words.some(
        (word, position) => isEntity(word, position) && names.some((name) => variantOf(word, name)),
      )
    ) {
      continue;
    }
    const other = words.some((word, position) => {
      if (!isEntity(word, position) || !kinds.has(ACRONYM_LIKE.test(word))) return false;
      const lower = word.toLowerCase();
      if (STOP_WORDS.has(lower)) return false;
      if (share >= REPLACED_SHARE && !ruleOff['contradiction.slotted-name']) {
        // (The other name may appear elsewhere in the claim: "than EBI2 … BM25's best hits".)
        const before = words[position - 1]?.toLowerCase();
        const after = words[position + 1]?.toLowerCase();
        const slotted = slots.some(
          (slot) =>
            (slot.before !== undefined && slot.before === before) ||
            (slot.after !== undefined && slot.after === after),
        );
        if (slotted) return true;
      }
      return !claimWords.includes(lower) && !claimCompact.includes(compactOf(word));
    });
    if (other) best = { sentence, share };
  }
  return best?.sentence;
}

/** Least share of the rest of a claim a sentence states to align a replaced name. */
const REPLACED_SHARE = 0.8;
/** Least share of the rest of a claim a sentence states to find a name replaced anywhere. */
const ABSENT_SHARE = 0.5;
/** Least number of other content terms a claim needs to align a replaced name. */
const ABSENT_MIN_TERMS = 2;
/** Least share of a sentence stating the rest of a claim whose name is swapped. */
const SWAP_SHARE = 0.7;

/**
 * An abbreviation in brackets the source never states, after words the source abbreviates
 * otherwise: "systemic lupus erythematosus (Gpr124)" against "systemic lupus erythematosus
 * (SLE)". The source sentence that does, or undefined.
 */
export function redefinedAbbreviation(
  claim: string,
  novelNames: readonly string[],
  sentences: readonly AnalysedSentence[],
): AnalysedSentence | undefined {
  for (const match of claim.matchAll(BRACKETED)) {
    const [, word, name] = match;
    if (!novelNames.includes(name!)) continue;
    const lower = word!.toLowerCase();
    for (const sentence of sentences) {
      for (const found of sentence.text.matchAll(BRACKETED)) {
        if (found[1]!.toLowerCase() === lower && !variantOf(found[2]!, name!)) return sentence;
      }
    }
  }
  return undefined;
}

// A word and the abbreviation in brackets after it: "erythematosus (SLE)".
const BRACKETED = /(?<![\p{L}\p{N}-])([\p{L}\p{N}-]+)\s?\(([\p{L}\p{N}][\p{L}\p{N}+\-/]*)\)/gu;

// Acronyms of an analysed source with their counts, computed once per source.
const acronymCache = new WeakMap<readonly AnalysedSentence[], ReadonlyMap<string, number>>();

function acronymCounts(sentences: readonly AnalysedSentence[]): ReadonlyMap<string, number> {
  const cached = acronymCache.get(sentences);
  if (cached) return cached;
  const counts = new Map<string, number>();
  for (const sentence of sentences) {
    for (const word of sentence.text.match(RAW_WORD) ?? []) {
      if (word.length >= 2 && isEntity(word, 0) && ACRONYM_LIKE.test(word)) {
        counts.set(word, (counts.get(word) ?? 0) + 1);
      }
    }
  }
  acronymCache.set(sentences, counts);
  return counts;
}

/**
 * The source's main name left out for one it never states: the claim has an acronym or code
 * the source never states, and not the acronym the source names most (at least
 * `MAIN_NAME_COUNT` times) in any spelling — "Rhythmic expression of CKD …" against an
 * abstract about Cry1. The sentence naming the source's main name that states most of the
 * claim, or undefined.
 */
export function missingMainName(
  claim: string,
  claimTerms: ReadonlySet<string>,
  novelNames: readonly string[],
  sentences: readonly AnalysedSentence[],
): AnalysedSentence | undefined {
  const names = novelNames.filter((name) => ACRONYM_LIKE.test(name) && !/^[IVX]+$/.test(name));
  if (names.length === 0) return undefined;
  const counts = acronymCounts(sentences);
  // A name extending one the source states ("H3k4me3" where it has "H3K4") is about it.
  const extending = (name: string) =>
    [...counts.keys()].some((word) => {
      const stated = compactOf(word);
      return stated.length >= 3 && compactOf(name).startsWith(stated);
    });
  if (!ruleOff['support.extending-name'] && names.every(extending)) return undefined;
  let main = '';
  let most = MAIN_NAME_COUNT - 1;
  for (const [word, count] of counts) {
    if (count > most) {
      main = word;
      most = count;
    }
  }
  if (main === '' || compactOf(claim).includes(compactOf(main))) return undefined;
  const claimNames = (claim.match(RAW_WORD) ?? []).filter(
    (word, position) => isEntity(word, position) || /[A-Z0-9]/.test(word.slice(1)),
  );
  if (claimNames.some((word) => variantOf(word, main))) return undefined;
  let best: { sentence: AnalysedSentence; shared: number } | undefined;
  for (const sentence of sentences) {
    const words: readonly string[] = sentence.text.match(RAW_WORD) ?? [];
    if (!words.includes(main)) continue;
    let shared = 0;
    for (const term of claimTerms) if (sentence.terms.has(term)) shared++;
    if (!best || shared > best.shared) best = { sentence, shared };
  }
  return best?.sentence;
}

/** Least number of mentions of the source's main name. */
const MAIN_NAME_COUNT = 3;
