/**
 * Negation for the contradiction checks of the grounding judge: which terms each negator of a
 * claim governs, and whether a sentence negates those terms itself (a negator or a word of absence or failure close to them). Pure.
 * @module
 */
import { STOP_WORDS } from '../../text/words.js';
import type { Token } from './contradiction-analysis.js';
import { ruleOff } from './rules.js';

// Content words at most this many words after a negator of the claim are what it negates.
const GOVERNED_REACH = 3;
// A negator of the source at most this many words before a governed term negates it.
const LOCAL_NEGATION_REACH = 4;

// Words that state an absence or a failure without a negator.
export const NEGATIVE_WORD =
  /^(?:lack\w*|fail(?:s|ed|ing)?|absen(?:t|ce)|unable|unaffected|unchanged|insignificant|nonsignificant|non-significant|independent\w*|little)$/;

/** The five-letter prefix of a stem (to match derived forms). */
export const prefixOf = (term: string): string => term.slice(0, 5);

/**
 * Whether a sentence negates what a negator of the claim governs: a negator at most
 * `LOCAL_NEGATION_REACH` words before one of the governed terms ("is not stored"), or a word of
 * absence or failure that close on either side ("stored … failed") — a negation elsewhere in a
 * long sentence ("so no later failure loses it") is about something else.
 */
export function negatesGoverned(tokens: readonly Token[], governed: ReadonlySet<string>): boolean {
  return tokens.some((token, index) => {
    if (!governed.has(prefixOf(token.stem))) return false;
    const from = Math.max(0, index - LOCAL_NEGATION_REACH);
    return (
      tokens.slice(from, index).some((other) => other.negator) ||
      tokens
        .slice(from, index + 1 + LOCAL_NEGATION_REACH)
        .some((other) => !ruleOff['contradiction.negative-words'] && NEGATIVE_WORD.test(other.word))
    );
  });
}

/** Prefixes of the claim terms each of its negators governs ("not associated" → "assoc"). */
export function governedGroups(tokens: readonly Token[]): Set<string>[] {
  const groups: Set<string>[] = [];
  tokens.forEach((token, index) => {
    if (!token.negator) return;
    const group = new Set<string>();
    for (const next of tokens.slice(index + 1, index + 1 + GOVERNED_REACH)) {
      if (next.negator || STOP_WORDS.has(next.word)) continue;
      group.add(prefixOf(next.stem));
    }
    if (group.size > 0) groups.push(group);
  });
  return groups;
}

/** Prefixes of the claim terms its negators govern, all together. */
export function governedTerms(tokens: readonly Token[]): Set<string> {
  return new Set(governedGroups(tokens).flatMap((group) => [...group]));
}
