/**
 * The offline support check of the grounding judge: a claim against one source, scored from
 * its evidence features, `contradicted` when the source states it otherwise, and the source
 * sentence that decides as the evidence span. Pure.
 * @module
 */
import { analyse, contentStems, tokensOf } from './contradiction-analysis.js';
import { missingMainName } from './contradiction-entities.js';
import { findContradiction, type ContradictionKind } from './contradiction.js';
import { supportEvidence } from './features.js';
import { prepareSource, type PreparedSource } from './source.js';
import { ruleOff } from './rules.js';
import { DEFAULT_SUPPORT_THRESHOLD, supportScore, type SupportWeights } from './weights.js';

/**
 * Verdict of the offline checker. `contradicted` only on firm evidence (`contradiction.ts`):
 * the source states the claim's quantity with another number or unit in a sentence about the
 * claim, has another name in place of the claim's, or states the claim with the opposite
 * polarity. A number merely absent from the source
 * (on SciFact, a missing rather than a contradicting source 10 times in 11) only lowers the score.
 */
export type OfflineVerdict = 'supported' | 'contradicted' | 'not_enough_info';

/** A span of a source text. */
export interface EvidenceSpan {
  /** Offset of its first character in the source text. */
  readonly start: number;
  /** Offset after its last character. */
  readonly end: number;
  /** `sourceText.slice(start, end)`. */
  readonly text: string;
}

/** How well a source supports a claim. */
export interface SupportCheck {
  /** Support in [0, 1]. */
  readonly score: number;
  /** `contradicted` when the source states it otherwise; else `supported` when `score ≥ threshold`, else `not_enough_info`. */
  readonly verdict: OfflineVerdict;
  /** The best-matching source sentence (for `contradicted`, the one that states otherwise), or null. */
  readonly evidence: EvidenceSpan | null;
  /** What the source states otherwise, when `contradicted`. */
  readonly contradiction?: ContradictionKind | undefined;
}

/** A contradicted claim's score is its support score times this (below any threshold ≥ 0.2). */
export const CONTRADICTION_FACTOR = 0.2;

/** Options of `checkSupport`. */
export interface CheckSupportOptions {
  /** Least score of a supported claim. Default `DEFAULT_SUPPORT_THRESHOLD`. */
  readonly threshold?: number | undefined;
  /** Score weights. Default `DEFAULT_SUPPORT_WEIGHTS`. */
  readonly weights?: SupportWeights | undefined;
}

/**
 * Checks offline whether a source supports a claim: its content terms (lightly stemmed),
 * numbers with their units and named entities found in the source, close together in one
 * sentence; a number that differs from every number of the same unit in the source, or a
 * negation only one side has, lowers the score. The best-matching source sentence is the
 * evidence. A claim about another subject — naming what the source never states, and not the
 * source's main name (`missingMainName`) — is `not_enough_info` with its score × 0.2, its
 * evidence the sentence naming that main name.
 */
export function checkSupport(
  claim: string,
  source: string | PreparedSource,
  options: CheckSupportOptions = {},
): SupportCheck {
  const prepared = typeof source === 'string' ? prepareSource(source) : source;
  const { features, plain, novel } = supportEvidence(claim, prepared);
  const support = supportScore(features, options.weights);
  const threshold = options.threshold ?? DEFAULT_SUPPORT_THRESHOLD;
  const contradiction = findContradiction(plain, prepared.text, prepared.sentences, novel);
  if (contradiction) {
    return {
      score: Math.round(support * CONTRADICTION_FACTOR * 1000) / 1000,
      verdict: 'contradicted',
      evidence: contradiction.evidence,
      contradiction: contradiction.kind,
    };
  }
  // About another subject: the claim names what the source never states, and not the name
  // the source is about. Not enough information, however many other words they share.
  const main =
    novel.length > 0 && !ruleOff['support.missing-main-name']
      ? missingMainName(
          plain,
          contentStems(tokensOf(plain)),
          novel,
          analyse(prepared.text, prepared.sentences),
        )
      : undefined;
  if (main) {
    return {
      score: Math.round(support * CONTRADICTION_FACTOR * 1000) / 1000,
      verdict: 'not_enough_info',
      evidence: { start: main.start, end: main.end, text: main.text },
    };
  }
  const sentence = prepared.sentences[features.bestSentence];
  const evidence = sentence
    ? {
        start: sentence.start,
        end: sentence.end,
        text: prepared.text.slice(sentence.start, sentence.end),
      }
    : null;
  const verdict: OfflineVerdict = support >= threshold ? 'supported' : 'not_enough_info';
  return { score: Math.round(support * 1000) / 1000, verdict, evidence };
}
