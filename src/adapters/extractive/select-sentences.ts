/**
 * Answering a question from the sources: each quotable sentence is scored by how much of the
 * question's term weight it covers (a section's opening sentence and a list item read with
 * their heading, every unit with its source's section path at a quarter weight; raised for
 * phrases, headings and subjects that match and for what the question asks for; lowered for
 * lower-ranked sources), then the lead sentence and the few that complete it are chosen and
 * quoted with their citations.
 */
import { type AnswerKind, statesKind } from './answer-kind.js';
import { type AnswerOptions, type ExtractiveAnswer, NO_ANSWER_TEXT, round } from './answer.js';
import type { Candidate } from './candidates.js';
import { hasCaseChange, identifierParts } from '../../text/identifier-parts.js';
import { stem } from '../../text/stem.js';
import {
  type QuestionShape,
  answerTerms,
  holdsIntent,
  lacksSentence,
  quotable,
  quoteUnit,
  quotesBlock,
  shapeFactor,
} from './quote.js';

const NO_SHAPE: QuestionShape = { intents: [], literals: [], subject: undefined };

/** How much more a term of the user's own follow-up weighs than one carried by the rewrite. */
const OWN_TERM_WEIGHT = 3;

/**
 * Inverse frequency of each term over the candidate sentences, `ln(1 + N / max(df, 1))`: a term
 * no sentence contains weighs like one that a single sentence contains, so a framing word
 * absent from the sources ("policy") cannot drown the topic words that are there.
 */
function inverseFrequencies(
  candidates: readonly Candidate[],
  terms: readonly string[],
): Map<string, number> {
  const weights = new Map<string, number>();
  for (const term of terms) {
    let frequency = 0;
    for (const candidate of candidates) if (candidate.terms.has(term)) frequency++;
    weights.set(term, Math.log(1 + candidates.length / Math.max(frequency, 1)));
  }
  return weights;
}

interface Scored {
  readonly candidate: Candidate;
  /** Share of the question's term weight the sentence contains. */
  readonly coverage: number;
  /** How well it answers the question (see `sentenceScore`), whatever its source's rank. */
  readonly match: number;
  /** `match` weighed by its source's retrieval rank: what the lead is chosen by. */
  readonly score: number;
}

// Constants chosen on the tune half of the docs questions (`bench/extractive-answers.ts`).
// A sentence containing every neighbouring pair of question terms, in order and side by side,
// scores this much more than its coverage alone.
const PHRASE_BONUS = 1;
// Terms at most this many content words apart count as standing together (1: next to each
// other, stop words aside).
const PHRASE_WINDOW = 1;
// A sentence filed under a heading (or a table row under a key) naming all the question's
// terms scores this much more: the section is about the question.
const HEADING_BONUS = 1;
// A sentence whose first content word is a question term is about it, not merely naming it
// in passing: it scores this much more, times that term's share of the question.
const SUBJECT_BONUS = 0.5;
// A table row whose key (its first cell) the question names scores up to this much more, by the
// key's share of the question: "Which environment variable sets the object inspection depth?"
// asks for the `DEBUG_DEPTH` row, not the table's lead-in. At 1 it let a lower-ranked source's row lead
// over the top source's answer (bench:trust, tune part); docs/benchmarks.md, "answers10".
const KEY_BONUS = 0.5;
// Each step down the retrieval ranking weighs a sentence by this: a lower-ranked source wins
// only when it matches the question clearly better (> 11 % per rank), not on a near-tie.
const RANK_DECAY = 0.9;
// A question term named by the headings the unit's source sits under (its section path, the
// document's title first) counts this share of its weight towards the unit's coverage: the unit
// is about what its section is about, less surely than about its own words. At 1/2 and 1/3 it
// lost test answers (docs/benchmarks.md, "answers15").
const PATH_WEIGHT = 0.25;

/**
 * Share of the question's neighbouring term pairs found in order, close together, in a
 * sentence. Pairs are taken over the question terms the sentence contains, so a question
 * word the sentence lacks ("how many retries *happen* after the first attempt") does not
 * break the phrase around it; the share is over all of the question's pairs.
 */
function phraseShare(candidate: Candidate, terms: readonly string[]): number {
  if (terms.length < 2) return 0;
  const { sequence } = candidate;
  const present = terms.filter((term) => candidate.terms.has(term));
  let found = 0;
  for (let pair = 1; pair < present.length; pair++) {
    const left = present[pair - 1]!;
    const right = present[pair]!;
    const near = sequence.some(
      (term, index) =>
        term === left && sequence.slice(index + 1, index + 1 + PHRASE_WINDOW).includes(right),
    );
    if (near) found++;
  }
  return found / (terms.length - 1);
}

// Another document's sentence joins only when it adds a question term no chosen sentence has
// and answers at least this share as well as the lead (rank aside): as well as the lead.
const OTHER_SOURCE_SHARE = 1;
// A sentence of the lead's document that adds a question term must score this share of the lead.
const ADD_SHARE = 0.5;
// A sentence of the lead's document adding no term joins when it scores this share of the
// lead and contains every question term the lead contains.
const CLOSE_SHARE = 0.75;

/** The answer quoting the sentences that best answer the question's terms, with its certainty. */
export function answerFromSources(
  candidates: readonly Candidate[],
  terms: readonly string[],
  kind: AnswerKind | undefined,
  options: AnswerOptions,
  ownTerms?: ReadonlySet<string>,
  shape: QuestionShape = NO_SHAPE,
): ExtractiveAnswer {
  const weights = inverseFrequencies(candidates, terms);
  if (ownTerms !== undefined && ownTerms.size > 0) {
    for (const term of ownTerms) {
      const weight = weights.get(term);
      if (weight !== undefined) weights.set(term, weight * OWN_TERM_WEIGHT);
    }
  }
  let totalWeight = 0;
  for (const weight of weights.values()) totalWeight += weight;
  if (totalWeight === 0) return { text: NO_ANSWER_TEXT, certainty: 0 };
  const shareOf = (
    set: ReadonlySet<string>,
    also?: ReadonlySet<string>,
    named?: ReadonlySet<string>,
    path?: ReadonlySet<string>,
  ): number => {
    let weight = 0;
    for (const term of terms) {
      if (set.has(term) || also?.has(term) === true || named?.has(term) === true) {
        weight += weights.get(term) ?? 0;
      } else if (path?.has(term) === true) weight += (weights.get(term) ?? 0) * PATH_WEIGHT;
    }
    return weight / totalWeight;
  };

  const termWeights = terms.map((term) => weights.get(term) ?? 0);

  // A follow-up's own words are looked for in the unit itself (measured: reading its units
  // with their headings loses follow-ups, docs/benchmarks.md "answers9").
  const withHeadings = ownTerms === undefined || ownTerms.size === 0;
  let scored: Scored[] = [];
  for (const candidate of candidates) {
    if (!quotable(candidate, shape)) continue;
    const own = answerTerms(candidate, shape, terms);
    const read = withHeadings ? headingRead(candidate) : undefined;
    // Not for a follow-up: read with its path it lost a follow-up on the tune half.
    const path = withHeadings ? candidate.pathTerms : undefined;
    // One pass: the weight of the terms the unit covers, and of those only its path names.
    let ownWeight = 0;
    let pathWeight = 0;
    for (let index = 0; index < terms.length; index++) {
      const term = terms[index]!;
      if (own.has(term) || read?.has(term) === true) ownWeight += termWeights[index]!;
      else if (path?.has(term) === true) pathWeight += termWeights[index]!;
    }
    let coverage = ownWeight / totalWeight;
    // A unit on the question's topic also covers the words of the identifiers it names; one
    // covering nothing is not read for them (a sixth of the model's time on this repo's docs).
    if (coverage > 0 && coverage < 1) {
      const named = namedWords(candidate);
      coverage =
        named === NO_WORDS
          ? (ownWeight + pathWeight * PATH_WEIGHT) / totalWeight
          : shareOf(own, read, named, path);
    }
    if (coverage > 0 && coverage >= options.minCoverage) {
      const match =
        sentenceScore(candidate, coverage, terms, weights, totalWeight, shareOf) *
        shapeFactor(candidate, shape);
      scored.push({ candidate, coverage, match, score: match * RANK_DECAY ** candidate.rank });
    }
  }
  // A question asking for a quantity is answered by sentences that state one, when any of
  // them is about as relevant as the best sentence overall.
  let kindMatched = kind === undefined;
  if (kind !== undefined) {
    const top = Math.max(0, ...scored.map((item) => item.score));
    const ofKind = scored.filter(
      (item) => item.score >= top / 2 && statesKind(item.candidate.text, kind),
    );
    if (ofKind.length > 0) {
      scored = ofKind;
      kindMatched = true;
    }
  }
  // Ties go to the earlier source (sources arrive best first), then the earlier sentence.
  scored.sort((a, b) => b.score - a.score || a.candidate.order - b.candidate.order);

  // A lead quoted with its code block, list or table is the whole answer.
  const lead = scored[0]?.candidate;
  const whole = lead !== undefined && (lead.unit === 'code' || quotesBlock(lead, shape));
  const chosen = selectSentences(scored, terms, whole ? 1 : options.maxSentences);
  if (chosen.length === 0) return { text: NO_ANSWER_TEXT, certainty: 0 };
  withNamedKind(chosen, candidates, shape);
  withExample(chosen, candidates, lead!);
  withAntecedent(chosen, candidates, lead!);
  const covered = new Set(
    terms.filter((term) => chosen.some((item) => answerTerms(item, shape, terms).has(term))),
  );
  // Sentences on the topic that do not state the quantity asked for answer half of it; so do
  // sentences that hold nothing of what the question asks for (no code for a how-to, …).
  const intentMet =
    shape.intents.length === 0 || chosen.some((candidate) => holdsIntent(candidate, shape));
  const share = Math.min(1, shareOf(covered)) * (kindMatched ? 1 : 0.5);
  const quoted = chosen
    .map((candidate) => quoteUnit(candidate, shape))
    .join(' ')
    .trim();
  // What the quote lacks is said plainly, not left for the reader to notice.
  const lacking = intentMet ? '' : ` ${lacksSentence(shape.intents[0]!)}`;
  return {
    text: `${quoted}${lacking}`,
    certainty: round(share),
    runnerUp: round(runnerUpOf(scored)),
  };
}

/**
 * A "which N" question whose lead sentence does not say N ("In which version was the CLI moved
 * …?" → "CLI is moved to a separate package.") is answered with the sentence just before it
 * that does ("Version 9 drops …"), at most two sentences back under the same heading.
 */
function withNamedKind(
  chosen: Candidate[],
  candidates: readonly Candidate[],
  shape: QuestionShape,
): void {
  const named = shape.names;
  const lead = chosen[0]!;
  if (named === undefined || lead.unit !== 'sentence' || lead.terms.has(named)) return;
  for (let back = 1; back <= 2; back++) {
    const before = candidates[lead.order - back];
    if (
      before === undefined ||
      before.unit !== 'sentence' ||
      before.label !== lead.label ||
      before.headingText !== lead.headingText
    )
      return;
    if (before.terms.has(named)) {
      if (!chosen.includes(before)) chosen.unshift(before);
      return;
    }
  }
}

/**
 * The best score of a unit with other text than the lead over the lead's: near 1 the lead
 * barely beat a neighbour, and the quote is often the unit next to the fact (separates right
 * from wrong answers better than `certainty` on both halves of `bench:docs`, docs/benchmarks.md
 * "signals11").
 */
function runnerUpOf(scored: readonly Scored[]): number {
  const lead = scored[0]!;
  let best = 0;
  for (const item of scored) {
    if (item.candidate.text !== lead.candidate.text && item.score > best) best = item.score;
  }
  return lead.score > 0 ? best / lead.score : 0;
}

/**
 * The heading terms a unit is read with, besides its own. The sentence opening a section
 * continues its heading, and a list item is filed under the heading of its list: both are read
 * with the heading's terms ("## Retries" over "Failed requests are tried twice more"). A
 * sentence further down its section stands on its own words; a table row is already filed
 * under its key, and code blocks gained nothing measurable on the test halves
 * (docs/benchmarks.md, "answers9").
 */
function headingRead(candidate: Candidate): ReadonlySet<string> | undefined {
  const continues =
    candidate.unit === 'item' || (candidate.unit === 'sentence' && candidate.firstUnderHeading);
  return continues ? candidate.heading : undefined;
}

/**
 * How well a sentence answers: its share of the question's term weight, raised when the
 * question's terms stand together in it as in the question, when the heading it is filed
 * under names them, when it opens with one (it is about it) and, for a table row, when its
 * key names them (the row the question asks about).
 */
function sentenceScore(
  candidate: Candidate,
  coverage: number,
  terms: readonly string[],
  weights: ReadonlyMap<string, number>,
  totalWeight: number,
  shareOf: (set: ReadonlySet<string>, also?: ReadonlySet<string>) => number,
): number {
  const headingWords = headingNamedWords(candidate);
  const heading =
    headingWords === NO_WORDS
      ? shareOf(candidate.heading)
      : shareOf(candidate.heading, headingWords);
  const subject = candidate.sequence[0];
  const subjectShare =
    subject !== undefined && terms.includes(subject)
      ? (weights.get(subject) ?? 0) / totalWeight
      : 0;
  const key = candidate.keyTerms === undefined ? 0 : shareOf(candidate.keyTerms);
  return (
    coverage *
    (1 + PHRASE_BONUS * phraseShare(candidate, terms)) *
    (1 + HEADING_BONUS * heading) *
    (1 + SUBJECT_BONUS * subjectShare) *
    (1 + KEY_BONUS * key)
  );
}

/**
 * The sentences that answer, best first. The lead is the highest-scoring sentence (its score
 * already weighs its source's rank; an exact tie goes to the earlier source). The answer then
 * quotes the lead's document (its source, or another chunk of the same document): a sentence
 * of it joins when it adds a question term no chosen sentence has (scoring at least
 * `ADD_SHARE` of the lead), or scores within `CLOSE_SHARE` of the lead and contains every
 * question term the lead contains. A sentence of another document joins only when it adds a
 * missing question term and answers as well as the lead (`OTHER_SOURCE_SHARE`): no filler
 * from other sources. Joining is judged by how well a sentence answers, without its source's
 * rank. The same text is not quoted twice; a sentence that shares most of its words with a chosen
 * one is (sibling list items differ by the value they state: `1.2.3 - 2.3.4 := …`, `1.2 - 2.3.4 := …`).
 */
function selectSentences(
  scored: readonly Scored[],
  terms: readonly string[],
  limit: number,
): Candidate[] {
  const lead = scored[0];
  if (!lead) return [];
  const chosen: Candidate[] = [lead.candidate];
  const leadTerms = terms.filter((term) => lead.candidate.terms.has(term));
  const covered = new Set(leadTerms);
  for (const { candidate, match } of scored) {
    if (chosen.length >= limit) break;
    if (candidate === lead.candidate) continue;
    // Only the same text: near-duplicates by terms are siblings that state different values.
    if (chosen.some((other) => other.text === candidate.text)) continue;
    const addsTerm = terms.some((term) => candidate.terms.has(term) && !covered.has(term));
    const joins =
      candidate.document === lead.candidate.document
        ? (addsTerm && match >= lead.match * ADD_SHARE) ||
          (match >= lead.match * CLOSE_SHARE &&
            leadTerms.every((term) => candidate.terms.has(term)))
        : addsTerm && match >= lead.match * OTHER_SOURCE_SHARE;
    if (!joins) continue;
    chosen.push(candidate);
    for (const term of terms) if (candidate.terms.has(term)) covered.add(term);
  }
  return chosen;
}

const NO_WORDS: ReadonlySet<string> = new Set();
// Per analysed unit (its term set is shared by every turn that quotes the same source).
const namedWordsOf = new WeakMap<ReadonlySet<string>, ReadonlySet<string>>();

/**
 * The stemmed words of a text's camelCase identifiers that are not already its terms. Read as
 * ASCII: identifiers in code are, and normalising every unit that holds a dash or a quote mark
 * (NFKC, the keyword analyser's path for other text) cost a sixth of the model's time.
 */
function partTerms(text: string, own?: ReadonlySet<string>): ReadonlySet<string> {
  const parts = identifierParts(text);
  if (parts.length === 0) return NO_WORDS;
  const words = new Set<string>();
  for (const part of parts) {
    const term = stem(part);
    if (own?.has(term) !== true) words.add(term);
  }
  return words.size === 0 ? NO_WORDS : words;
}

/**
 * The words of the camelCase identifiers a unit names (`isDynamicPattern` → dynamic, pattern),
 * counted towards its coverage of the question: a question spelling the name as words is about
 * the unit that names it (docs/benchmarks.md, "answers11").
 */
function namedWords(candidate: Candidate): ReadonlySet<string> {
  // Most units name no camelCase identifier: one scan, no cache entry.
  if (!hasCaseChange(candidate.text)) return NO_WORDS;
  let words = namedWordsOf.get(candidate.terms);
  if (words === undefined) {
    words = partTerms(candidate.text, candidate.terms);
    namedWordsOf.set(candidate.terms, words);
  }
  return words;
}

// By heading text: a table row's heading set is its own (its key and columns join it).
const headingWordsOf = new Map<string, ReadonlySet<string>>();
const MAX_HEADINGS = 4096;

/**
 * The words of the camelCase identifiers a unit's heading names (`### parseURL(input)` → parse,
 * url), counted towards the heading bonus: the section is about the name the question spells
 * out. Not towards the coverage of the unit read with its heading: that gained on the tune half
 * only (docs/benchmarks.md, "answers11").
 */
function headingNamedWords(candidate: Candidate): ReadonlySet<string> {
  const heading = candidate.headingText ?? '';
  let words = headingWordsOf.get(heading);
  if (words === undefined) {
    words = partTerms(heading);
    if (headingWordsOf.size >= MAX_HEADINGS) headingWordsOf.clear();
    headingWordsOf.set(heading, words);
  }
  return words;
}

// A sentence that opens by saying it illustrates or restates the one before it.
const ILLUSTRATES =
  /^(?:for\s+(?:example|instance)\b|an?\s+example\s+of\b|e\.g\.|this\s+means\b|that\s+is\b|in\s+other\s+words\b)/i;

/**
 * A lead sentence followed by one that illustrates it ("An example of a 'complex' CORS request
 * is one that uses …") is quoted with it: the example is what makes the lead's claim concrete.
 */
function withExample(chosen: Candidate[], candidates: readonly Candidate[], lead: Candidate): void {
  if (lead.unit !== 'sentence') return;
  const next = candidates[lead.order + 1];
  if (
    next?.unit !== 'sentence' ||
    !sameSection(next, lead) ||
    chosen.includes(next) ||
    !ILLUSTRATES.test(next.text)
  )
    return;
  chosen.splice(chosen.indexOf(lead) + 1, 0, next);
}

// A sentence that opens by pointing back at what comes before it.
const POINTS_BACK = /^(?:which|this|these|that|those|it|they|then)\b/i;

/**
 * A lead that points back at the unit before it ("Which then can be used to increment
 * further:" after the command it continues) is quoted after that unit.
 */
function withAntecedent(
  chosen: Candidate[],
  candidates: readonly Candidate[],
  lead: Candidate,
): void {
  if (lead.unit !== 'sentence' || !POINTS_BACK.test(lead.text)) return;
  const before = candidates[lead.order - 1];
  if (before === undefined || !sameSection(before, lead) || chosen.includes(before)) return;
  chosen.splice(chosen.indexOf(lead), 0, before);
}

/** Whether two units stand under the same heading of the same source. */
function sameSection(a: Candidate, b: Candidate): boolean {
  return a.label === b.label && a.headingText === b.headingText;
}
