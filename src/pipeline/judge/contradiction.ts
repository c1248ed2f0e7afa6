/**
 * Offline contradiction checks of the grounding judge: a cited claim that states a quantity
 * the source states differently (another number, or the same number in another unit), or that
 * reverses the polarity of the source sentence it matches ("are never refunded" ↔ "are
 * refunded"). Each finding carries the source span that states it otherwise. Pure.
 *
 * @example
 * ```ts
 * const found = findContradiction(
 *   'Refunds are paid within 45 business days.',
 *   'Refunds are paid within 5 business days of the request.',
 * );
 * found?.kind; // 'number'
 * found?.evidence.text; // 'Refunds are paid within 5 business days of the request.'
 * ```
 * @module
 */
import { splitSentences } from '../../text/sentences.js';
import { ruleOff } from './rules.js';
import {
  ABOUT_SHARE,
  analyse,
  contentStems,
  tokensOf,
  type AnalysedSentence,
  type SourceSentence,
  type Token,
} from './contradiction-analysis.js';
import { redefinedAbbreviation, replacedEntity, swappedEntity } from './contradiction-entities.js';
import {
  NEGATIVE_WORD,
  governedGroups,
  governedTerms,
  negatesGoverned,
  prefixOf,
} from './contradiction-negation.js';
import {
  dimensionOf,
  overlaps,
  quantitiesOf,
  renamedNumber,
  sameDimension,
  sameQuantity,
  type Quantity,
} from './contradiction-quantities.js';

/** How a claim contradicts its source. */
export type ContradictionKind = 'number' | 'unit' | 'entity' | 'negation';

/** A contradiction found between a claim and a source. */
export interface Contradiction {
  /** What differs: a number, the unit of a number, a name, or the polarity. */
  readonly kind: ContradictionKind;
  /** The source sentence that states it otherwise (offsets in the source text). */
  readonly evidence: { readonly start: number; readonly end: number; readonly text: string };
}

/** A sentence about a claim: its span, its share of the claim's content terms, its analysis. */
interface AboutSentence extends SourceSentence {
  /** The share of the claim's content terms it contains. */
  readonly share: number;
  /** The analysed sentence. */
  readonly sentence: AnalysedSentence;
}

/** Least share of a sentence about a negated claim. */
const NEGATED_CLAIM_SHARE = 0.5;
/** Least share of a sentence that states the claim nearly word for word. */
const VERBATIM_SHARE = 0.9;

/**
 * Whether the source gives the quantity's value only with other units of its dimension: every
 * mention of the value has a unit, and none the quantity's own.
 */
function otherUnitOnly(quantity: Quantity, sentences: readonly AnalysedSentence[]): boolean {
  if (quantity.unit === '' || dimensionOf(quantity.unit) === undefined) return false;
  let found = false;
  for (const sentence of sentences) {
    for (const other of sentence.quantities) {
      // A bare mention ("n = 32") is another quantity; another dimension's unit says otherwise.
      if (!overlaps(quantity, other) || other.unit === '') continue;
      if (!sameDimension(quantity, other)) return false;
      found = true;
    }
  }
  return found;
}

/**
 * The first contradiction of a claim by a source, or null: a number of the claim that the
 * source states with another value for the same quantity (same unit, or the same word after
 * it) in a sentence about the claim, while no statement of the source gives the claim's value
 * for it; the claim's number with another unit of the same dimension; or a sentence that states
 * the claim with a negation only one of them has. `sentences` are the source's sentence spans
 * (split here when omitted).
 */
export function findContradiction(
  claim: string,
  sourceText: string,
  sentences: readonly { readonly start: number; readonly end: number }[] = splitSentences(
    sourceText,
  ),
  novelNames: readonly string[] = [],
): Contradiction | null {
  const claimTokens = tokensOf(claim);
  const claimTerms = contentStems(claimTokens);
  if (claimTerms.size === 0) return null;
  const analysed = analyse(sourceText, sentences);
  // Only sentences about the claim can contradict it: keep those, with their share.
  const spans: AboutSentence[] = [];
  for (const sentence of analysed) {
    let shared = 0;
    for (const term of claimTerms) if (sentence.terms.has(term)) shared++;
    const share = shared / claimTerms.size;
    if (share >= ABOUT_SHARE) {
      spans.push({
        start: sentence.start,
        end: sentence.end,
        text: sentence.text,
        share,
        sentence,
      });
    }
  }
  if (spans.length === 0) return null;
  const evidence = (span: SourceSentence) => ({
    start: span.start,
    end: span.end,
    text: span.text,
  });

  const claimQuantities = quantitiesOf(claim);
  if (claimQuantities.length > 0) {
    const sourceQuantities = spans.map((span) => span.sentence.quantities);
    for (const quantity of claimQuantities) {
      const stated = analysed.some((sentence) =>
        sentence.quantities.some(
          (other) => sameQuantity(quantity, other) && overlaps(quantity, other),
        ),
      );
      if (stated) continue;
      // The source gives the value only in other units of the same dimension ("for 4 hours"
      // against "for 4 days"): the sentence that does, even when it shares few of the claim's
      // words ("At 18 months, …" against "for up to 18 years").
      if (!ruleOff['contradiction.unit-elsewhere'] && otherUnitOnly(quantity, analysed)) {
        const other = analysed.find((sentence) =>
          sentence.quantities.some(
            (mention) => sameDimension(quantity, mention) && overlaps(quantity, mention),
          ),
        );
        if (other) return { kind: 'unit', evidence: evidence(other) };
      }
      // Another value for the same quantity, in a sentence about the claim.
      const valueIndex = spans.findIndex(
        (span, index) =>
          span.share >= ABOUT_SHARE &&
          sourceQuantities[index]!.some(
            (other) => sameQuantity(quantity, other) && !overlaps(quantity, other),
          ),
      );
      if (valueIndex >= 0 && !ruleOff['contradiction.number']) {
        return { kind: 'number', evidence: evidence(spans[valueIndex]!) };
      }
    }
  }

  // A number naming what it follows ("Type 5") that the source gives only other numbers.
  const renamed = ruleOff['contradiction.renamed-number'] ? -1 : renamedNumber(claim, sourceText);
  if (renamed >= 0) {
    const at = analysed.find((sentence) => sentence.start <= renamed && renamed < sentence.end);
    if (at) return { kind: 'number', evidence: evidence(at) };
  }

  const off = ruleOff;
  const swapped =
    (off['contradiction.swapped-entity'] ? undefined : swappedEntity(claim, sourceText, spans)) ??
    (off['contradiction.redefined-abbreviation']
      ? undefined
      : redefinedAbbreviation(claim, novelNames, analysed)) ??
    (off['contradiction.replaced-entity']
      ? undefined
      : replacedEntity(claim, claimTerms, novelNames, analysed));
  if (swapped) return { kind: 'entity', evidence: evidence(swapped) };

  // Polarity. A negated claim ("are not refunded") is contradicted when the sentences about it
  // that contain what it negates never negate anything; an affirmative one when the sentence
  // that states it most fully negates one of its terms.
  // A sentence stating (nearly) the whole claim decides the polarity alone: each negator on
  // either side must be matched on the other ("is not stored …, so no later failure" against
  // "is stored …, so no later failure"; "is cut" against "is never cut").
  let closest: (typeof spans)[number] | undefined;
  for (const span of spans) if (!closest || span.share > closest.share) closest = span;
  if (closest && closest.share >= VERBATIM_SHARE && !off['contradiction.negation-verbatim']) {
    const unmatched = (tokens: readonly Token[]) => (group: ReadonlySet<string>) =>
      tokens.some((token) => group.has(prefixOf(token.stem))) && !negatesGoverned(tokens, group);
    if (
      governedGroups(claimTokens).some(unmatched(closest.sentence.tokens)) ||
      governedGroups(closest.sentence.tokens).some(unmatched(claimTokens))
    ) {
      return { kind: 'negation', evidence: evidence(closest) };
    }
    return null;
  }

  const governed = governedTerms(claimTokens);
  if (governed.size > 0 && !off['contradiction.negated-claim']) {
    // Among the sentences about the claim: those holding what it negates (`stating`), and,
    // when none does, the one most about it (`top`).
    let stating: (typeof spans)[number] | undefined;
    let negatedSomewhere = false;
    let top: (typeof spans)[number] | undefined;
    let negatesAnything = false;
    for (const span of spans) {
      if (span.share < NEGATED_CLAIM_SHARE) continue;
      if (!top || span.share > top.share) top = span;
      const tokens = span.sentence.tokens;
      if (
        tokens.some(
          (token) =>
            token.negator ||
            (!off['contradiction.negative-words'] && NEGATIVE_WORD.test(token.word)),
        )
      ) {
        negatesAnything = true;
      }
      if (!tokens.some((token) => governed.has(prefixOf(token.stem)))) continue;
      // Only a negation of what the claim negates counts, not one elsewhere in the sentence.
      if (negatesGoverned(tokens, governed)) negatedSomewhere = true;
      if (!stating || span.share > stating.share) stating = span;
    }
    if (stating) return negatedSomewhere ? null : { kind: 'negation', evidence: evidence(stating) };
    // What the claim negates is in no sentence about it: those sentences must negate
    // something, or they state the claim without its negation.
    if (top && !negatesAnything) return { kind: 'negation', evidence: evidence(top) };
    return null;
  }
  return null;
}
