/**
 * Answer types for the guard: a question about a price or a time of day is answered by a
 * sentence stating an amount of money or a clock time, even when it shares no word with the
 * question ("Do students get a discount?" ↔ "Students with a valid card pay 19 euros instead
 * of 29"; "When does it start in the morning?" ↔ "Service hours are from 5:00 to 1:00").
 *
 * Two domain-independent rules, not a thesaurus: a query term naming a price (cost, price,
 * pay, fee, discount, cheap, expensive, afford) counts as contained in a chunk that states a
 * currency amount, and a term naming a time of day (time, morning, afternoon, evening, night,
 * midnight, noon) in a chunk that states a clock time. Nothing mined from the corpus can bridge
 * these gaps: "discount" and "morning" do not occur in it.
 */
import { stemmedTerms } from '../text/stem.js';

// "€5", "$ 12.50", "19 euros", "25 cents", "10 USD".
const MONEY =
  /[$€£¥]\s?\d|\b\d+(?:[.,]\d+)?\s?(?:euros?|dollars?|cents?|pounds?|pence|yen|usd|eur|gbp)\b/i;
// "5:00", "17:30", "9 am", "11pm".
const CLOCK_TIME = /\b(?:[01]?\d|2[0-3]):[0-5]\d\b|\b(?:1[0-2]|0?[1-9])\s?(?:am|pm)\b/i;

/** Whether a text states an amount of money. */
export function statesMoney(text: string): boolean {
  return MONEY.test(text);
}

/** Whether a text states a clock time. */
export function statesClockTime(text: string): boolean {
  return CLOCK_TIME.test(text);
}

/**
 * The answer types: the query words that ask for one (stemmed on first use; "evening" stems to
 * "even", like "even") and whether a text states one.
 */
const ANSWER_TYPES: readonly { words: string; states: (text: string) => boolean }[] = [
  {
    words: 'cost costs price prices pay paid fee fees discount discounts cheap expensive afford',
    states: statesMoney,
  },
  { words: 'time morning afternoon evening night midnight noon', states: statesClockTime },
];

let builtTypeTerms: readonly ReadonlySet<string>[] | undefined;

/** The stemmed query terms of each answer type, in `ANSWER_TYPES`' order. */
function typeTerms(): readonly ReadonlySet<string>[] {
  return (builtTypeTerms ??= ANSWER_TYPES.map((type) => new Set(stemmedTerms(type.words))));
}

/**
 * The query terms missing from a chunk that its stated values answer: price terms when the
 * chunk states an amount of money, time-of-day terms when it states a clock time. Each type's pattern runs at most once per chunk.
 */
export function answeredByType(missing: Iterable<string>, chunkText: string): Set<string> {
  const answered = new Set<string>();
  const stated: (boolean | undefined)[] = [];
  const terms = typeTerms();
  for (const term of missing) {
    const type = terms.findIndex((set) => set.has(term));
    if (type >= 0 && (stated[type] ??= ANSWER_TYPES[type]!.states(chunkText))) answered.add(term);
  }
  return answered;
}
