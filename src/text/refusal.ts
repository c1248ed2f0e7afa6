/**
 * Whether an answer text is a refusal the model wrote itself ("The provided sources do not
 * contain an answer to this question.", "I don't know.", "I couldn't find that in the
 * documents."). Pure and language-light: it looks only at the answer's first sentence and at
 * citations, so an answer that states something and then says what the docs leave out ("The
 * docs describe X [source: S1] but do not say Y") is not a refusal.
 */

/** Longest text looked at: a refusal is one or two short sentences. */
const MAX_REFUSAL_LENGTH = 400;

/** A `[source: …]` citation: an answer that cites a source says something. */
const CITATION = /\[source:\s*[^\]\s]/i;

/** Openings of a refusal, on the text lower-cased with typographic apostrophes folded. */
const REFUSAL_PATTERNS: readonly RegExp[] = [
  // "The provided sources do not contain an answer", "The documents don't mention it"
  /^(?:sorry,?\s+|unfortunately,?\s+)?(?:the|these|those|my|your)\s+(?:provided\s+|available\s+|given\s+|retrieved\s+)?(?:sources?|documents?|docs|documentation|context|knowledge base|passages?|excerpts?)\s+(?:do(?:es)?\s+not|don't|doesn't|did\s+not|didn't|cannot|can't|contain\s+no|provide\s+no|say\s+nothing|has\s+no|have\s+no)\b/,
  // "There is no information about that in the sources"
  /^(?:sorry,?\s+|unfortunately,?\s+)?there\s+(?:is|are|was)\s+no\s+(?:information|answer|mention|details?|data)\b/,
  // "I don't know", "I cannot answer", "I couldn't find", "I'm unable to answer", "I don't have"
  /^(?:sorry,?\s+|unfortunately,?\s+)?i(?:\s+(?:do\s+not|don't|cannot|can't|could\s+not|couldn't|am\s+unable\s+to|am\s+not\s+able\s+to|was\s+unable\s+to|did\s+not|didn't)|'m\s+(?:unable|not\s+able)\s+to)\s+(?:know|answer|find|have|see|locate|determine|help)\b/,
  // "No answer was found", "No relevant information"
  /^(?:sorry,?\s+)?no\s+(?:answer|relevant|information|sources?|documents?)\b/,
  // "I answer only from the documents in the knowledge base, and none were provided"
  /^i\s+(?:only\s+answer|answer\s+only)\s+from\b/,
];

/**
 * True when `text` is a refusal: short, without a citation, and its first sentence opens as
 * a refusal does. The extractive model's own refusals (`NO_ANSWER_TEXT`, `NO_SOURCES_TEXT`)
 * and the default guard answer are recognised.
 */
export function isRefusalText(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_REFUSAL_LENGTH) return false;
  if (CITATION.test(trimmed)) return false;
  const normalized = trimmed
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/\s+/g, ' ');
  return REFUSAL_PATTERNS.some((pattern) => pattern.test(normalized));
}
