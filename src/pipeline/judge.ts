/**
 * The grounding judge: splits an answer into claims (its sentences), maps each to the sources
 * it cites, and checks every (claim, cited source) pair for support — offline from lexical and
 * numeric evidence, or with an LLM asked for a strict JSON verdict. Each verdict carries the
 * evidence span (character offsets in the source text), so a UI can highlight what supports a
 * sentence. Pure: no I/O except the optional LLM call.
 *
 * @example
 * ```ts
 * const result = judgeAnswerOffline({
 *   answer: 'Refunds take 14 days [source: S1]. Shipping is free [source: S1].',
 *   sources: [{ id: 'S1', text: 'Refunds are issued within 14 days of the request.' }],
 * });
 * result.grounding.claims[0]?.verdict; // 'supported'
 * result.grounding.claims[1]?.verdict; // 'not_enough_info'
 * ```
 * @module
 */
import type { LLMProvider } from '../ports/llm-provider.js';
import { extractClaims, removeClaims, type Claim } from './judge/claims.js';
import type { ContradictionKind } from './judge/contradiction.js';
import { llmJudge, locateEvidence } from './judge/llm.js';
import { prepareSource, type PreparedSource } from './judge/source.js';
import { checkSupport, type EvidenceSpan, type SupportCheck } from './judge/support.js';
import { DEFAULT_SUPPORT_THRESHOLD } from './judge/weights.js';
import { createSecondSightCache } from '../util/second-sight.js';

// The parts of the judge, by responsibility: claims (`judge/claims.ts`), source analysis
// (`judge/source.ts`), evidence features (`judge/features.ts`), the fitted score
// (`judge/weights.ts`), the offline check (`judge/support.ts`), contradictions
// (`judge/contradiction.ts`), novelty and polarity (`judge/novelty.ts`), the LLM judge
// (`judge/llm.ts`). What the rest of the SDK, its tests and benchmarks use is exported here.
export { extractClaims, removeClaims } from './judge/claims.js';
export type { ContradictionKind } from './judge/contradiction.js';
export { supportFeatures, type SupportFeatures } from './judge/features.js';
export { llmJudge, parseLLMVerdict } from './judge/llm.js';
export { prepareSource, type PreparedSource } from './judge/source.js';
export { checkSupport } from './judge/support.js';
export {
  DEFAULT_SUPPORT_THRESHOLD,
  DEFAULT_SUPPORT_WEIGHTS,
  supportScore,
  type SupportWeights,
} from './judge/weights.js';

// ---------------------------------------------------------------------------------------------
// Answers

/** Verdict of a claim: checked against its sources, or `uncited` when it cites none. */
export type ClaimVerdict = 'supported' | 'contradicted' | 'not_enough_info' | 'uncited';

/** The evidence of a claim: a span of one of the sources it cites. */
export interface ClaimEvidence extends EvidenceSpan {
  /** Label of the source (`S1`…). */
  readonly sourceId: string;
}

/** The grounding of one claim. */
export interface ClaimGrounding {
  /** The sentence without citation tags. */
  readonly text: string;
  /** Labels it cites. */
  readonly sourceIds: readonly string[];
  /** The verdict. */
  readonly verdict: ClaimVerdict;
  /** Offline support score in [0, 1] of its best cited source (0 when uncited). */
  readonly score: number;
  /** The best evidence among its cited sources, or null (uncited, or no sentence matched). */
  readonly evidence: ClaimEvidence | null;
  /** Who decided the verdict: the offline checker or the LLM judge. */
  readonly judgedBy: 'offline' | 'llm';
  /**
   * What the source states otherwise when the offline checker found the claim `contradicted`:
   * `number` (another value for the same quantity), `unit` (the same value in another unit),
   * `entity` (another name in its place) or `negation` (the opposite polarity); absent otherwise.
   */
  readonly contradiction?: ContradictionKind | undefined;
}

/** Per-claim grounding of an answer. */
export interface Grounding {
  /** The claims, in answer order. */
  readonly claims: readonly ClaimGrounding[];
  /**
   * Supported claims / all claims (uncited ones count as unsupported), in [0, 1];
   * 1 when the answer makes no claim.
   */
  readonly supportedRatio: number;
}

/** What to do with unsupported claims. */
export type JudgePolicy = 'annotate' | 'remove' | 'block';

/** A source the answer may cite. */
export interface JudgeSource {
  /** The label the answer cites (`S1`…). */
  readonly id: string;
  /** The text given to the model (evidence offsets refer to it). */
  readonly text: string;
}

/** Input of `judgeAnswer`. */
export interface JudgeInput {
  /** The answer, with `[source: Sx]` tags. */
  readonly answer: string;
  /** The sources it may cite. */
  readonly sources: readonly JudgeSource[];
  /** `annotate` (default): report only; `remove`: drop unsupported claims; `block`: report whether to block. */
  readonly policy?: JudgePolicy | undefined;
  /** Least offline score of a supported claim. Default `DEFAULT_SUPPORT_THRESHOLD`. */
  readonly threshold?: number | undefined;
  /** `block`: the answer is blocked when `supportedRatio` is below this. Default 0.5. */
  readonly minSupportedRatio?: number | undefined;
  /** `remove`: also drop uncited sentences. Default false (they stay: not every sentence is a claim about the sources). */
  readonly removeUncited?: boolean | undefined;
  /** Asks this model for each cited claim's verdict (offline verdict when it fails). */
  readonly llm?: LLMProvider | undefined;
  /** Cancels the LLM calls (the offline verdicts are returned). */
  readonly signal?: AbortSignal | undefined;
}

/** Result of `judgeAnswer`. */
export interface JudgeResult {
  /** Per-claim grounding. */
  readonly grounding: Grounding;
  /** The answer after the policy: with `remove`, without the unsupported sentences; otherwise unchanged. */
  readonly text: string;
  /** Claims removed by `remove` (empty otherwise). */
  readonly removed: readonly ClaimGrounding[];
  /** With `block`: true when `supportedRatio < minSupportedRatio` — replace the answer with the guard answer. */
  readonly blocked: boolean;
}

/** Default least supported ratio of an answer under the `block` policy. */
export const DEFAULT_MIN_SUPPORTED_RATIO = 0.5;

// Analysed sources of recent turns: popular chunks are cited turn after turn. Kept from a
// source's second sight on (`second-sight.ts`): most cited chunks are cited once, and keeping
// their analyses makes them outlive V8's young generation.
const PREPARED_SOURCE_CACHE_SIZE = 2_000;
const preparedSourceCache = createSecondSightCache<PreparedSource>(PREPARED_SOURCE_CACHE_SIZE);

/** The offline grounding of each claim. */
function groundClaims(
  claims: readonly Claim[],
  sources: readonly JudgeSource[],
  threshold: number,
): { grounding: ClaimGrounding; best: PreparedSource | null; bestId: string | null }[] {
  const byId = new Map(sources.map((source) => [source.id, source]));
  const prepared = new Map<string, PreparedSource>();
  const prepare = (id: string): PreparedSource | undefined => {
    const source = byId.get(id);
    if (!source) return undefined;
    let result = prepared.get(id);
    if (!result) {
      const { text } = source;
      result = preparedSourceCache.get(text, () => prepareSource(text));
      prepared.set(id, result);
    }
    return result;
  };
  return claims.map((claim) => {
    let best: { id: string; check: SupportCheck; source: PreparedSource } | null = null;
    for (const id of claim.sourceIds) {
      const source = prepare(id);
      if (!source) continue;
      const check = checkSupport(claim.text, source, { threshold });
      if (!best || check.score > best.check.score) best = { id, check, source };
    }
    if (!best) {
      return {
        grounding: {
          text: claim.text,
          sourceIds: claim.sourceIds,
          verdict: 'uncited',
          score: 0,
          evidence: null,
          judgedBy: 'offline',
        },
        best: null,
        bestId: null,
      };
    }
    const { check } = best;
    return {
      grounding: {
        text: claim.text,
        sourceIds: claim.sourceIds,
        verdict: check.verdict,
        score: check.score,
        evidence: check.evidence ? { sourceId: best.id, ...check.evidence } : null,
        judgedBy: 'offline',
        ...(check.contradiction ? { contradiction: check.contradiction } : {}),
      },
      best: best.source,
      bestId: best.id,
    };
  });
}

/** Applies the policy to the claims' grounding. */
function applyPolicy(
  input: JudgeInput,
  claims: readonly Claim[],
  groundings: readonly ClaimGrounding[],
): JudgeResult {
  const supported = groundings.filter((claim) => claim.verdict === 'supported').length;
  const supportedRatio =
    groundings.length === 0 ? 1 : Math.round((supported / groundings.length) * 1000) / 1000;
  const grounding: Grounding = { claims: groundings, supportedRatio };
  const policy = input.policy ?? 'annotate';
  if (policy === 'remove') {
    const drop = groundings
      .map((claim, index) => ({ claim, index }))
      .filter(
        ({ claim }) =>
          claim.verdict === 'not_enough_info' ||
          claim.verdict === 'contradicted' ||
          (claim.verdict === 'uncited' && input.removeUncited === true),
      );
    return {
      grounding,
      text: removeClaims(
        input.answer,
        drop.map(({ index }) => claims[index]!),
      ),
      removed: drop.map(({ claim }) => claim),
      blocked: false,
    };
  }
  const blocked =
    policy === 'block' && supportedRatio < (input.minSupportedRatio ?? DEFAULT_MIN_SUPPORTED_RATIO);
  return { grounding, text: input.answer, removed: [], blocked };
}

/** Judges an answer offline (synchronous): claims, verdicts, evidence, and the policy applied. */
export function judgeAnswerOffline(input: JudgeInput): JudgeResult {
  const claims = extractClaims(input.answer);
  const groundings = groundClaims(
    claims,
    input.sources,
    input.threshold ?? DEFAULT_SUPPORT_THRESHOLD,
  );
  return applyPolicy(
    input,
    claims,
    groundings.map((entry) => entry.grounding),
  );
}
/**
 * Judges an answer: offline, or — with `llm` — each cited claim by the model against its
 * best-matching cited source (all claims at once). A claim whose LLM call fails or answers
 * invalid JSON keeps its offline verdict. Never throws for a model failure.
 */
export async function judgeAnswer(input: JudgeInput): Promise<JudgeResult> {
  const claims = extractClaims(input.answer);
  const threshold = input.threshold ?? DEFAULT_SUPPORT_THRESHOLD;
  const offline = groundClaims(claims, input.sources, threshold);
  const { llm } = input;
  if (!llm) {
    return applyPolicy(
      input,
      claims,
      offline.map((entry) => entry.grounding),
    );
  }
  const groundings = await Promise.all(
    offline.map(async ({ grounding, best, bestId }): Promise<ClaimGrounding> => {
      if (!best || bestId === null || input.signal?.aborted) return grounding;
      const verdict = await llmJudge(llm, grounding.text, best.text, input.signal);
      if (!verdict) return grounding;
      const span = locateEvidence(verdict.evidence, best);
      // The model's verdict replaces the offline one, with its reason.
      const { contradiction: _offline, ...rest } = grounding;
      return {
        ...rest,
        verdict: verdict.verdict,
        evidence: span ? { sourceId: bestId, ...span } : grounding.evidence,
        judgedBy: 'llm',
      };
    }),
  );
  return applyPolicy(input, claims, groundings);
}
