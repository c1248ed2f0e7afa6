/**
 * How the router decides an intent: the labelled example questions, the keyword rules (cue
 * phrases per intent) and the vote that combines the rules with the nearest examples.
 */
import type { Intent } from './strategies.js';

/** A labelled example question. */
export interface RouteExample {
  /** The question. */
  readonly text: string;
  /** Its intent. */
  readonly intent: Exclude<Intent, 'hybrid'>;
}

/** The built-in example questions (a few per intent, domain-neutral). */
export const DEFAULT_ROUTE_EXAMPLES: readonly RouteExample[] = [
  { intent: 'retrieval', text: 'What is the refund policy?' },
  { intent: 'retrieval', text: 'How many days does shipping take?' },
  { intent: 'retrieval', text: 'When was the API version 2 released?' },
  { intent: 'retrieval', text: 'Who is the contact for billing questions?' },
  { intent: 'retrieval', text: 'What does error code 429 mean?' },
  { intent: 'retrieval', text: 'Does the drug reduce blood pressure?' },
  { intent: 'relational', text: 'How is the billing service related to the user accounts?' },
  { intent: 'relational', text: 'Which documents cite the security guide?' },
  { intent: 'relational', text: 'What depends on the payment module?' },
  { intent: 'relational', text: 'How are these two proteins connected?' },
  { intent: 'relational', text: 'What is the link between sleep and memory?' },
  { intent: 'relational', text: 'Which papers reference this study?' },
  { intent: 'synthesis', text: 'Summarize the onboarding process.' },
  { intent: 'synthesis', text: 'Give me an overview of all deployment options.' },
  { intent: 'synthesis', text: 'Compare the pricing plans.' },
  { intent: 'synthesis', text: 'What are the main themes across these reports?' },
  { intent: 'synthesis', text: 'List the pros and cons of each approach.' },
  { intent: 'synthesis', text: 'What does the literature say overall about vitamin D?' },
];

/** Cue phrases per intent; each match adds its weight. */
const RULES: Readonly<Record<Exclude<Intent, 'hybrid'>, readonly [RegExp, number][]>> = {
  retrieval: [
    [/^\s*(what|who|when|where|which|is|are|does|do|did|can|how (much|many|long|often))\b/i, 0.5],
    [/\b(define|definition of|meaning of|policy|price|version|error code)\b/i, 0.3],
  ],
  relational: [
    [
      /\b(relat(e|es|ed|ion|ions|ionship|ionships)|connect(s|ed|ion|ions)?|linked|links? between)\b/i,
      1,
    ],
    [
      /\b(cite[sd]?|citations?|references?|referenced by|derived from|depends? on|dependenc(y|ies))\b/i,
      1,
    ],
    [
      /\b(between .{1,200}? and|associated with|impact of .{1,200}? on|effect of .{1,200}? on|leads? to|caused? by)\b/i,
      0.6,
    ],
  ],
  synthesis: [
    [/\b(summar(y|ies|ise|ize|ized|ised)|overview|synthes(is|ise|ize)|recap|tl;?dr)\b/i, 1],
    [/\b(compare|comparison|contrast|differences?|similarities|pros and cons|trade-?offs?)\b/i, 1],
    [
      /\b(all (the )?|every|across|overall|main (points|themes|ideas)|key (points|takeaways)|list)\b/i,
      0.5,
    ],
  ],
};

/** Rule scores per intent (sum of matched cue weights, capped at 1). */
export function ruleScores(query: string): Record<Exclude<Intent, 'hybrid'>, number> {
  const score = (rules: readonly [RegExp, number][]): number =>
    Math.min(
      1,
      rules.reduce((sum, [pattern, weight]) => sum + (pattern.test(query) ? weight : 0), 0),
    );
  return {
    retrieval: score(RULES.retrieval),
    relational: score(RULES.relational),
    synthesis: score(RULES.synthesis),
  };
}

/** Cosine similarity of two vectors (0 when either is all zeros). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < a.length; index++) {
    const x = a[index]!;
    const y = b[index] ?? 0;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return normA > 0 && normB > 0 ? dot / Math.sqrt(normA * normB) : 0;
}

/**
 * Combines the two votes: each base intent scores `ruleWeight · rule + (1 − ruleWeight) ·
 * example vote`; two non-retrieval intents both clearly cued make the query `hybrid`.
 * Confidence is the winner's share of the total score.
 */
export function decideIntent(
  rules: Readonly<Record<Exclude<Intent, 'hybrid'>, number>>,
  votes: Readonly<Record<Exclude<Intent, 'hybrid'>, number>> | null,
  ruleWeight: number,
): { intent: Intent; confidence: number } {
  const base = ['retrieval', 'relational', 'synthesis'] as const;
  if (rules.relational >= 0.6 && rules.synthesis >= 0.6) {
    const confidence = (rules.relational + rules.synthesis) / (2 + rules.retrieval);
    return { intent: 'hybrid', confidence: Math.min(1, confidence) };
  }
  const weight = votes === null ? 1 : ruleWeight;
  const scores = base.map(
    (intent) => weight * rules[intent] + (1 - weight) * (votes?.[intent] ?? 0),
  );
  // A query with no cue at all is a lookup.
  scores[0]! += 0.05;
  const total = scores.reduce((sum, value) => sum + value, 0);
  let best = 0;
  for (let index = 1; index < scores.length; index++)
    if (scores[index]! > scores[best]!) best = index;
  return { intent: base[best]!, confidence: total > 0 ? scores[best]! / total : 1 };
}
