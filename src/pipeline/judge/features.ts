/**
 * Evidence features of the grounding judge: how much of a claim a source states — its
 * weighted terms anywhere and in the best sentence, term pairs close together, numbers and
 * names found — and the signals against it (a differing number, a negation or a direction only
 * one side has, a name or number the source never states). Each feature is in [0, 1];
 * `weights.ts` turns them into the support score. Pure, with a bounded cache of analysed claims.
 * @module
 */
import { stripTags } from './claims.js';
import { novelNames, novelNumber, polaritySignals } from './novelty.js';
import {
  entitiesOf,
  numbersOf,
  prefixOf,
  prepareSource,
  termsOf,
  type NumberMention,
  type PreparedSentence,
  type PreparedSource,
} from './source.js';
import { registerTextCache } from '../../util/second-sight.js';
import { ruleOff } from './rules.js';

/** The evidence features of a (claim, source) pair, each in [0, 1]. */
export interface SupportFeatures {
  /** Share of the claim's term weight found anywhere in the source. */
  readonly coverage: number;
  /** Share of the claim's term weight found in the best source sentence and its neighbours. */
  readonly sentenceCoverage: number;
  /** Share of the claim's neighbouring term pairs found close together in one sentence. */
  readonly proximity: number;
  /** Share of the claim's numbers found in the source (1 when the claim has none). */
  readonly numbers: number;
  /** Share of the claim's named entities found in the source (1 when it has none). */
  readonly entities: number;
  /** 1 when a number of the claim differs from every number of the same unit in the source. */
  readonly numberMismatch: number;
  /** 1 when exactly one of the claim and its best source sentence is negated ("not", "no", "fails", …). */
  readonly polarityMismatch: number;
  /** 1 when the claim has a name (acronym, code, capitalised word) the source never states in any form. */
  readonly novelName: number;
  /** 1 when the claim has a number the source never states, or gives its naming word another number ("Type 5" ↔ "Type 1"). */
  readonly novelNumber: number;
  /** 1 when the claim negates and no source sentence about it negates anything. */
  readonly negationUnmatched: number;
  /** 1 when the claim states an increase (a decrease) and the sentences about it only the opposite. */
  readonly directionMismatch: number;
  /** Index of the best sentence, or -1. */
  readonly bestSentence: number;
}

/** A claim analysed once. */
interface PreparedClaim {
  readonly terms: readonly string[];
  /** `prefixOf` of each term. */
  readonly prefixes: readonly string[];
  readonly weights: readonly number[];
  readonly total: number;
  readonly pairs: readonly (readonly [string, string])[];
  readonly numbers: readonly NumberMention[];
  readonly acronyms: readonly string[];
  readonly names: readonly string[];
  readonly negated: boolean;
}

// Words that negate or reverse a statement.
const NEGATION =
  /\b(?:not|no|never|none|neither|nor|without|lacks?|lacking|fail(?:s|ed)?|unable|incapable|absen(?:t|ce)|cannot|decrease[sd]?|reduce[sd]?|lower|inhibit(?:s|ed)?|less)\b|n't\b/i;

const claimCache = new Map<string, PreparedClaim>();
registerTextCache(claimCache);
const CLAIM_CACHE_SIZE = 256;

/** Term weight: specific terms (long, with digits or capitals) count more than short ones. */
function termWeight(term: string): number {
  if (ruleOff['feature.term-weights']) return 1;
  if (/\d/.test(term)) return 1.5;
  return term.length >= 7 ? 1.25 : term.length <= 3 ? 0.75 : 1;
}

function prepareClaim(text: string): PreparedClaim {
  const cached = claimCache.get(text);
  if (cached) return cached;
  const sequence = termsOf(stripTags(text));
  const terms = [...new Set(sequence)];
  const weights = terms.map(termWeight);
  const pairs: [string, string][] = [];
  for (let index = 1; index < sequence.length; index++) {
    if (sequence[index - 1] !== sequence[index])
      pairs.push([sequence[index - 1]!, sequence[index]!]);
  }
  const { acronyms, names } = entitiesOf(text);
  const prepared: PreparedClaim = {
    terms,
    prefixes: terms.map(prefixOf),
    weights,
    total: weights.reduce((sum, weight) => sum + weight, 0),
    pairs,
    numbers: numbersOf(text),
    acronyms,
    names,
    negated: NEGATION.test(text),
  };
  if (claimCache.size >= CLAIM_CACHE_SIZE) claimCache.clear();
  claimCache.set(text, prepared);
  return prepared;
}

// Terms at most this many positions apart count as "close together".
const PROXIMITY_WINDOW = 4;

/** Weighted share of the claim's terms in a set: exact stems 1, shared 5-letter prefix ½. */
function covered(
  claim: PreparedClaim,
  terms: ReadonlySet<string>,
  prefixes: ReadonlySet<string>,
): number {
  if (claim.total === 0) return 0;
  const prefixCredit = !ruleOff['feature.prefix-credit'];
  let sum = 0;
  for (let index = 0; index < claim.terms.length; index++) {
    const weight = claim.weights[index]!;
    if (terms.has(claim.terms[index]!)) sum += weight;
    else if (prefixCredit && prefixes.has(claim.prefixes[index]!)) sum += weight / 2;
  }
  return sum / claim.total;
}

/** Share of the claim's term pairs found within the proximity window of one sentence. */
function pairsClose(claim: PreparedClaim, sentence: PreparedSentence): number {
  if (claim.pairs.length === 0) return 0;
  let found = 0;
  for (const [left, right] of claim.pairs) {
    if (!sentence.terms.has(left) || !sentence.terms.has(right)) continue;
    const { sequence } = sentence;
    let near = false;
    for (let index = 0; index < sequence.length && !near; index++) {
      if (sequence[index] !== left) continue;
      const from = Math.max(0, index - PROXIMITY_WINDOW);
      const to = Math.min(sequence.length, index + PROXIMITY_WINDOW + 1);
      for (let other = from; other < to; other++) {
        if (sequence[other] === right) {
          near = true;
          break;
        }
      }
    }
    if (near) found++;
  }
  return found / claim.pairs.length;
}

/** Whether two numbers are the same value (tolerating rounding). */
const sameNumber = (a: number, b: number): boolean =>
  a === b || Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));

/** The evidence features of a claim against a source. */
export function supportFeatures(claim: string, source: string | PreparedSource): SupportFeatures {
  const prepared = typeof source === 'string' ? prepareSource(source) : source;
  return supportEvidence(claim, prepared).features;
}

/** What `supportEvidence` found besides the features, for the checks that follow them. */
export interface SupportEvidence {
  /** The evidence features. */
  readonly features: SupportFeatures;
  /** The claim without its citation tags. */
  readonly plain: string;
  /** The names of the claim the source never states (`novelNames`). */
  readonly novel: readonly string[];
}

/**
 * The evidence features of a claim against a prepared source, with the claim without its tags
 * and its novel names, which `checkSupport` reads next (computed once for both).
 */
export function supportEvidence(claim: string, prepared: PreparedSource): SupportEvidence {
  const analysed = prepareClaim(claim);
  const coverage = covered(analysed, prepared.terms, prepared.prefixes);

  let bestSentence = -1;
  let bestScore = -1;
  let sentenceCoverage = 0;
  let proximity = 0;
  const { sentences } = prepared;
  sentences.forEach((sentence, index) => {
    const own = covered(analysed, sentence.terms, sentence.prefixes);
    const close = pairsClose(analysed, sentence);
    const combined = ruleOff['feature.proximity-pick'] ? own : own + close;
    if (combined > bestScore) {
      bestScore = combined;
      bestSentence = index;
    }
    if (own > sentenceCoverage) sentenceCoverage = own;
    if (close > proximity) proximity = close;
  });

  let numbersFound = 0;
  let numberMismatch = 0;
  for (const number of analysed.numbers) {
    if (prepared.numbers.some((other) => sameNumber(other.value, number.value))) {
      numbersFound++;
    } else if (number.unit !== '' && prepared.numbers.some((other) => other.unit === number.unit)) {
      numberMismatch = 1;
    }
  }
  const numbers = analysed.numbers.length === 0 ? 1 : numbersFound / analysed.numbers.length;

  const entityCount = analysed.acronyms.length + analysed.names.length;
  let entitiesFound = 0;
  for (const acronym of analysed.acronyms) {
    if (prepared.acronyms.has(acronym) || prepared.lower.includes(acronym.toLowerCase())) {
      entitiesFound++;
    }
  }
  for (const name of analysed.names) if (prepared.lower.includes(name)) entitiesFound++;
  const entities = entityCount === 0 ? 1 : entitiesFound / entityCount;

  const best = sentences[bestSentence];
  const polarityMismatch =
    best !== undefined &&
    analysed.negated !== NEGATION.test(prepared.text.slice(best.start, best.end))
      ? 1
      : 0;
  const plain = stripTags(claim);
  const polarity = polaritySignals(plain, analysed.terms, prepared);
  const novel = novelNames(plain, prepared);
  const off = ruleOff;
  const features: SupportFeatures = {
    coverage,
    sentenceCoverage: off['feature.sentence-coverage'] ? 0 : sentenceCoverage,
    proximity,
    numbers: off['feature.numbers'] ? 1 : numbers,
    entities: off['feature.entities'] ? 1 : entities,
    numberMismatch: off['feature.number-mismatch'] ? 0 : numberMismatch,
    polarityMismatch: off['feature.polarity-mismatch'] ? 0 : polarityMismatch,
    novelName: novel.length > 0 && !off['feature.novel-name'] ? 1 : 0,
    novelNumber: off['feature.novel-number'] || novelNumber(plain, prepared) === undefined ? 0 : 1,
    negationUnmatched: off['feature.negation-unmatched'] ? 0 : polarity.negationUnmatched,
    directionMismatch: off['feature.direction-mismatch'] ? 0 : polarity.directionMismatch,
    bestSentence,
  };
  return { features, plain, novel };
}
