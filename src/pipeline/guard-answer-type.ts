/**
 * Answer types for the guard: a question about a price or a time of day is answered by a
 * sentence stating an amount of money or a clock time, even when it shares no word with the
 * question ("Do students get a discount?" ↔ "Students with a valid card pay 19 euros instead
 * of 29"; "When does it start in the morning?" ↔ "Service hours are from 5:00 to 1:00").
 *
 * Three domain-independent rules, not a thesaurus: a query term naming a price (cost, price,
 * pay, fee, discount, cheap, expensive, afford) counts as contained in a chunk that states a
 * currency amount, a term naming a time of day (time, morning, afternoon, evening, night,
 * midnight, noon) in a chunk that states a clock time, and a term naming the keyboard
 * (keyboard, shortcut, keystroke, hotkey) in a chunk that states a key combination ("How do I
 * cancel a prompt from the keyboard?" ↔ "ctrl + c | Cancel the prompt"). Nothing mined from
 * the corpus can bridge these gaps: "discount", "morning" and "keyboard" do not occur in it.
 */
import { stemmedTerms } from '../text/stem.js';

let builtPriceTerms: ReadonlySet<string> | undefined;
let builtTimeOfDayTerms: ReadonlySet<string> | undefined;

/** Stemmed query terms that ask for an amount of money (stemmed on the first call). */
export function priceTerms(): ReadonlySet<string> {
  return (builtPriceTerms ??= new Set(
    stemmedTerms(
      'cost costs price prices pay paid fee fees discount discounts cheap expensive afford',
    ),
  ));
}

/**
 * Stemmed query terms that ask for a time of day ("evening" stems to "even", like "even");
 * stemmed on the first call.
 */
export function timeOfDayTerms(): ReadonlySet<string> {
  return (builtTimeOfDayTerms ??= new Set(
    stemmedTerms('time morning afternoon evening night midnight noon'),
  ));
}

let builtKeyboardTerms: ReadonlySet<string> | undefined;

/** Stemmed query terms that ask for a key combination (stemmed on the first call). */
export function keyboardTerms(): ReadonlySet<string> {
  return (builtKeyboardTerms ??= new Set(
    stemmedTerms('keyboard keystroke keystrokes shortcut shortcuts hotkey hotkeys'),
  ));
}

// "€5", "$ 12.50", "19 euros", "25 cents", "10 USD".
const MONEY =
  /[$€£¥]\s?\d|\b\d+(?:[.,]\d+)?\s?(?:euros?|dollars?|cents?|pounds?|pence|yen|usd|eur|gbp)\b/i;
// "5:00", "17:30", "9 am", "11pm".
const CLOCK_TIME = /\b(?:[01]?\d|2[0-3]):[0-5]\d\b|\b(?:1[0-2]|0?[1-9])\s?(?:am|pm)\b/i;

// "ctrl + c", "Ctrl+C", "shift+tab", "cmd+k".
const KEY_COMBINATION = /\b(?:ctrl|cmd|alt|shift|meta)\s?\+\s?\w/i;

/** Whether a text states an amount of money. */
export function statesMoney(text: string): boolean {
  return MONEY.test(text);
}

/** Whether a text states a clock time. */
export function statesClockTime(text: string): boolean {
  return CLOCK_TIME.test(text);
}

/** Whether a text states a key combination. */
export function statesKeyCombination(text: string): boolean {
  return KEY_COMBINATION.test(text);
}

/**
 * The query terms missing from a chunk that its stated values answer: price terms when the
 * chunk states an amount of money, time-of-day terms when it states a clock time, keyboard
 * terms when it states a key combination.
 */
export function answeredByType(missing: Iterable<string>, chunkText: string): Set<string> {
  const answered = new Set<string>();
  let money: boolean | undefined;
  let clock: boolean | undefined;
  let keys: boolean | undefined;
  for (const term of missing) {
    if (priceTerms().has(term) && (money ??= statesMoney(chunkText))) answered.add(term);
    else if (timeOfDayTerms().has(term) && (clock ??= statesClockTime(chunkText))) {
      answered.add(term);
    } else if (keyboardTerms().has(term) && (keys ??= statesKeyCombination(chunkText))) {
      answered.add(term);
    }
  }
  return answered;
}
