/**
 * Summaries: SumBasic picks the sentences (of the sources, or of the conversation) whose terms
 * are most frequent, each pick lowering the weight of the terms it covered.
 */
import { type ExtractiveAnswer, NO_ANSWER_TEXT, cite, round } from './answer.js';
import type { Candidate } from './candidates.js';

/**
 * SumBasic: repeatedly take the sentence whose terms are most frequent in the whole text, then
 * square the probabilities of its terms so the next pick covers something else. Chosen
 * sentences are returned in their original order.
 */
export function summarize(
  candidates: readonly Candidate[],
  limit: number,
  withCitations: boolean,
): ExtractiveAnswer {
  if (candidates.length === 0) return { text: NO_ANSWER_TEXT, certainty: 0 };
  const probability = new Map<string, number>();
  let total = 0;
  for (const candidate of candidates) {
    for (const term of candidate.terms) {
      probability.set(term, (probability.get(term) ?? 0) + 1);
      total++;
    }
  }
  for (const [term, count] of probability) probability.set(term, count / total);
  const initial = new Map(probability);

  const chosen: Candidate[] = [];
  const remaining = [...candidates];
  while (chosen.length < limit && remaining.length > 0) {
    let bestIndex = -1;
    let bestScore = -1;
    remaining.forEach((candidate, index) => {
      let sum = 0;
      for (const term of candidate.terms) sum += probability.get(term) ?? 0;
      const score = sum / candidate.terms.size;
      if (score > bestScore) {
        bestScore = score;
        bestIndex = index;
      }
    });
    const [pick] = remaining.splice(bestIndex, 1);
    if (!pick || chosen.some((other) => isNearDuplicate(other, pick))) continue;
    chosen.push(pick);
    for (const term of pick.terms) probability.set(term, (probability.get(term) ?? 0) ** 2);
  }
  chosen.sort((a, b) => a.order - b.order);

  const covered = new Set(chosen.flatMap((candidate) => [...candidate.terms]));
  let mass = 0;
  for (const term of covered) mass += initial.get(term) ?? 0;
  return {
    text: chosen.map((item) => (withCitations ? cite(item.text, item.label) : item.text)).join(' '),
    certainty: round(Math.min(1, mass)),
  };
}

/** Whether two sentences share most of their terms (Jaccard ≥ 0.7), or are the same text. */
function isNearDuplicate(a: Candidate, b: Candidate): boolean {
  if (a.text === b.text) return true;
  let shared = 0;
  for (const term of a.terms) if (b.terms.has(term)) shared++;
  const union = a.terms.size + b.terms.size - shared;
  return union > 0 && shared / union >= 0.7;
}
