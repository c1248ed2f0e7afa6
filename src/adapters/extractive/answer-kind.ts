/**
 * The kind of answer a question asks for ("how long" a duration, "how much" an amount of
 * money, …) and whether a sentence states an answer of that kind.
 */

/**
 * What kind of answer a question asks for, read from its own words: "how long / fast" a
 * duration, "how much / what does it cost" an amount of money, "how old" an age, "what time"
 * a time of day, "how far" a distance, "when …" a moment or condition, "how many" a count. A
 * sentence of the wrong kind does not answer it, however many of its words it shares.
 */
export type AnswerKind = 'duration' | 'money' | 'age' | 'clock' | 'distance' | 'when' | 'count';

const NUMBER_WORD =
  '(?:\\d+(?:[.,:]\\d+)?|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:-(?:one|two|three|four|five|six|seven|eight|nine))?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|hundred)';
const DURATION_UNIT =
  '(?:business\\s+|working\\s+|calendar\\s+)?(?:milliseconds?|seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)';

const ANSWER_KINDS: readonly {
  readonly kind: AnswerKind;
  readonly question: RegExp;
  readonly answer: RegExp;
}[] = [
  {
    kind: 'age',
    question: /\bhow\s+old\b|\b(?:minimum|maximum|what)\s+age\b|\bage\s+(?:limit|requirement)/i,
    answer: new RegExp(
      `\\b${NUMBER_WORD}\\s*(?:\\+|years?\\s+(?:old|of\\s+age)|-year-old)|\\b(?:under|over|aged?)\\s+\\d+`,
      'i',
    ),
  },
  {
    kind: 'duration',
    question:
      /\bhow\s+(?:long|fast|quickly|soon)\b|\bhow\s+many\s+(?:business\s+|working\s+)?(?:seconds|minutes|hours|days|weeks|months|years)\b/i,
    answer: new RegExp(
      `\\b${NUMBER_WORD}\\s*(?:-|–|to)?\\s*(?:\\d+\\s*)?${DURATION_UNIT}\\b|\\b\\d+(?:[.,]\\d+)?\\s*m?s\\b|\\b(?:next|same)\\s+(?:business\\s+)?day\\b|\\b(?:immediately|instantly|overnight)\\b`,
      'i',
    ),
  },
  {
    kind: 'money',
    question:
      /\bhow\s+much\b|^(?=[\s\S]*\bwhat\s+(?:does|do|is|are)\b)(?=[\s\S]*\b(?:cost|price|fee)s?\b)/i,
    answer:
      /[$€£]\s?\d|\b\d+(?:[.,]\d+)?\s*(?:euros?|dollars?|cents?|pounds?|usd|eur|gbp)\b|\bfree\b/i,
  },
  {
    kind: 'clock',
    question: /\bwhat\s+time\b|\bat\s+what\s+hour\b|\bopening\s+hours\b/i,
    answer: /\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.)|\b(?:noon|midnight)\b/i,
  },
  {
    kind: 'distance',
    question: /\bhow\s+far\b/i,
    answer: /\b\d+(?:[.,]\d+)?\s*(?:km|kilomet(?:er|re)s?|miles?|met(?:er|re)s?|m)\b/i,
  },
  {
    kind: 'when',
    question: /^\s*when\b/i,
    answer:
      /\b(?:when|whenever|if|unless|after|before|once|until|as soon as|every|each time|at the (?:start|end))\b/i,
  },
  {
    kind: 'count',
    question: /\bhow\s+many\b/i,
    answer: new RegExp(`\\b${NUMBER_WORD}\\b`, 'i'),
  },
];

/** The kind of answer a question asks for, if it asks for a quantity or a moment. */
export function answerKindOf(question: string): AnswerKind | undefined {
  return ANSWER_KINDS.find((entry) => entry.question.test(question))?.kind;
}

/** Whether a sentence states an answer of the given kind. */
export function statesKind(text: string, kind: AnswerKind): boolean {
  return ANSWER_KINDS.find((entry) => entry.kind === kind)!.answer.test(text);
}
