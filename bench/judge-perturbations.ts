/**
 * Perturbations of true cited claims for the judge benchmark (`bench/judge.ts`): change a
 * number, change a unit, swap a name, negate. Each returns the perturbed claim, or undefined
 * when the claim has nothing of that kind (or the source does not state the part changed, so
 * the change would test nothing). Deterministic.
 */

/** What a perturbation changes. */
export type PerturbationKind = 'number' | 'unit' | 'entity' | 'negation';

/** The perturbation kinds, in report order. */
export const PERTURBATION_KINDS: readonly PerturbationKind[] = [
  'number',
  'unit',
  'entity',
  'negation',
];

// A number standing alone (not inside an identifier such as "IL-6" or "BRCA1").
const NUMBER = /(?<![\p{L}\d.,\-·/])(\d+(?:\.\d+)?)(?![\p{L}\d]|[.,·]\d)/gu;

/** Another plausible value: small numbers shift, larger ones scale. */
function otherValue(text: string): string {
  const value = Number(text);
  const decimals = text.includes('.') ? text.split('.')[1]!.length : 0;
  const changed = value === 0 ? 5 : value < 10 ? value + 4 : value * 3;
  return changed.toFixed(decimals);
}

const wordIn = (text: string, word: string): boolean =>
  new RegExp(
    `(?<![\\p{L}\\d])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\d])`,
    'iu',
  ).test(text);

/** The first number of the claim that the source states too, changed. */
export function changeNumber(claim: string, source: string): string | undefined {
  for (const match of claim.matchAll(NUMBER)) {
    const number = match[1]!;
    if (!wordIn(source, number)) continue;
    return (
      claim.slice(0, match.index) + otherValue(number) + claim.slice(match.index + number.length)
    );
  }
  return undefined;
}

// Each unit and the one of the same dimension it becomes.
const UNIT_SWAPS: readonly (readonly [RegExp, string])[] = [
  [/^(\s?)seconds?\b/i, '$1minutes'],
  [/^(\s?)minutes?\b/i, '$1hours'],
  [/^(\s?)hours?\b/i, '$1days'],
  [/^(\s?)days?\b/i, '$1weeks'],
  [/^(\s?)weeks?\b/i, '$1months'],
  [/^(\s?)months?\b/i, '$1years'],
  [/^(\s?)years?\b/i, '$1months'],
  [/^(\s?)(?:%|percent\b)/i, ' percentage points'],
  [/^(\s?)mg\b/i, '$1g'],
  [/^(\s?)kg\b/i, '$1g'],
  [/^(\s?)g\b/, '$1kg'],
  [/^(\s?)ml\b/i, '$1l'],
  [/^(\s?)mm\b/i, '$1cm'],
  [/^(\s?)cm\b/i, '$1mm'],
  [/^(\s?)km\b/i, '$1miles'],
  [/^(\s?)euros?\b/i, '$1dollars'],
  [/^(\s?)dollars?\b/i, '$1euros'],
  [/^(\s?)(?:kb|KB)\b/, '$1MB'],
  [/^(\s?)(?:mb|MB)\b/, '$1GB'],
  [/^(\s?)tokens?\b/i, '$1characters'],
];

/** The unit after the first number of the claim (business days, %, mg …), swapped. */
export function changeUnit(claim: string): string | undefined {
  for (const match of claim.matchAll(NUMBER)) {
    const at = match.index + match[1]!.length;
    let rest = claim.slice(at);
    let prefix = '';
    const qualifier = /^(\s?(?:business|working|calendar))(?=\s)/i.exec(rest);
    if (qualifier) {
      prefix = qualifier[1]!;
      rest = rest.slice(prefix.length);
    }
    for (const [pattern, replacement] of UNIT_SWAPS) {
      if (!pattern.test(rest)) continue;
      return claim.slice(0, at) + prefix + rest.replace(pattern, replacement);
    }
  }
  return undefined;
}

// Names: acronyms and codes (two capitals or digits), or capitalised words inside a sentence.
const ACRONYM = /(?<![\p{L}\d-])[A-Z][A-Za-z0-9]*[A-Z0-9][A-Za-z0-9]*(?![\p{L}\d-])/gu;
const CAPITALISED = /(?<=\s)[A-Z][a-z]{2,}(?![\p{L}\d-])/gu;

/** Names of a claim (acronyms first). */
export function namesOf(claim: string): string[] {
  const acronyms = (claim.match(ACRONYM) ?? []).filter(
    (token) => (token.match(/[A-Z0-9]/g)?.length ?? 0) >= 2,
  );
  return [...new Set([...acronyms, ...(claim.match(CAPITALISED) ?? [])])];
}

/**
 * The first name of the claim that the source states, replaced by a name of the same shape
 * from `pool` that the source never mentions (picked by a hash of the claim).
 */
export function swapEntity(
  claim: string,
  source: string,
  pool: readonly string[],
): string | undefined {
  const lowerSource = source.toLowerCase();
  for (const name of namesOf(claim)) {
    if (!lowerSource.includes(name.toLowerCase())) continue;
    const acronym = (name.match(/[A-Z0-9]/g)?.length ?? 0) >= 2;
    const candidates = pool.filter(
      (other) =>
        other !== name &&
        (other.match(/[A-Z0-9]/g)?.length ?? 0) >= 2 === acronym &&
        !lowerSource.includes(other.toLowerCase()),
    );
    if (candidates.length === 0) continue;
    let hash = 0;
    for (const character of claim) hash = (hash * 31 + character.charCodeAt(0)) >>> 0;
    const replacement = candidates[hash % candidates.length]!;
    return claim.replace(name, replacement);
  }
  return undefined;
}

const AUXILIARY =
  /\b(is|are|was|were|can|could|does|do|did|has|have|had|will|would|may|might|should|must)\b(?!\s+not\b)/i;

/** The claim negated: "not" after its first auxiliary, or its "not" removed. */
export function negate(claim: string): string | undefined {
  const negated = /\s(?:not|never)\b/i.exec(claim);
  if (negated)
    return claim.slice(0, negated.index) + claim.slice(negated.index + negated[0].length);
  const contracted = /\b(\w+)n't\b/i.exec(claim);
  if (contracted) return claim.replace(contracted[0], contracted[1]!);
  const auxiliary = AUXILIARY.exec(claim);
  if (!auxiliary) return undefined;
  const end = auxiliary.index + auxiliary[0].length;
  return `${claim.slice(0, end)} not${claim.slice(end)}`;
}

/** The claim perturbed in the given way, or undefined when that does not apply to it. */
export function perturb(
  kind: PerturbationKind,
  claim: string,
  source: string,
  pool: readonly string[],
): string | undefined {
  switch (kind) {
    case 'number':
      return changeNumber(claim, source);
    case 'unit':
      return changeUnit(claim);
    case 'entity':
      return swapEntity(claim, source, pool);
    case 'negation':
      return negate(claim);
  }
}
