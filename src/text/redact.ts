/**
 * Redaction of personal data in user messages (seed 001: "PII redaction still applies to chat
 * history"). The engine applies the `redact` function of its config to each message (and to
 * a stateless turn's `history`) before anything stores, searches, logs or sends it, so the
 * session store, recall, the learning sink and the model all see the redacted text.
 *
 * {@link redactPII} is a baseline for common machine-checkable identifiers, not a guarantee:
 * names, addresses and free-text identifiers pass through. Compose your own with it:
 * `redact: (text) => redactPII(text).replace(/\bACME-\d{6}\b/g, '[customer id]')`.
 * @module
 */

import { ConfigError } from '../errors/index.js';

/** Turns a message into the text the engine keeps and uses. */
export type Redactor = (text: string) => string;

// The local part starts where a run of its characters starts: without the look-behind, every
// position inside a long run of letters would rescan the rest of it (quadratic time).
const EMAIL =
  /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu;
// 13–19 digits, optionally grouped by single spaces or dashes (checked with Luhn).
const CARD = /(?<![\p{N}\p{L}])\d(?:[ -]?\d){12,18}(?![\p{N}\p{L}])/gu;
// Country code, check digits, 11–30 alphanumerics, optionally grouped by spaces (mod-97).
const IBAN = /(?<![\p{N}\p{L}])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![\p{N}\p{L}])/gu;
const SSN = /(?<![\p{N}-])\d{3}-\d{2}-\d{4}(?![\p{N}-])/gu;
// International (+…) or bracketed area code, then digit groups: 7–15 digits in all.
const PHONE =
  /(?<![\p{N}\p{L}+])(?:\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?|\(\d{1,4}\)[ .-]?)\d{1,4}(?:[ .-]?\d{1,4}){1,5}(?![\p{N}\p{L}])/gu;

function digitsOf(text: string): string {
  return text.replace(/\D/g, '');
}

/** The Luhn checksum of payment card numbers. */
function luhn(digits: string): boolean {
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    let digit = digits.charCodeAt(digits.length - 1 - index) - 48;
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** ISO 13616 mod-97 check of an IBAN (spaces removed). */
function ibanValid(iban: string): boolean {
  const compact = iban.replace(/ /g, '');
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (const character of rearranged) {
    const code = character.charCodeAt(0);
    const value = code >= 65 ? String(code - 55) : character;
    for (const digit of value) remainder = (remainder * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return remainder === 1;
}

/**
 * Replaces e-mail addresses with `[email]`, IBANs (valid mod-97) with `[iban]`, payment card
 * numbers (13–19 digits, valid Luhn) with `[card]`, US social security numbers (`123-45-6789`)
 * with `[ssn]`, and phone numbers written with a `+` country code or a bracketed area code
 * (7–15 digits) with `[phone]`. Other numbers (amounts, dates, order numbers) are kept.
 */
export function redactPII(text: string): string {
  return text
    .replace(EMAIL, '[email]')
    .replace(IBAN, (match) => (ibanValid(match) ? '[iban]' : match))
    .replace(CARD, (match) => (luhn(digitsOf(match)) ? '[card]' : match))
    .replace(SSN, '[ssn]')
    .replace(PHONE, (match) => {
      const count = digitsOf(match).length;
      return count >= 7 && count <= 15 ? '[phone]' : match;
    });
}

/**
 * The request with its message (and a stateless turn's history) passed through the config's
 * `redact`, so that nothing downstream sees the original text.
 */
export function redactRequest<
  R extends {
    readonly message: string;
    readonly history?: readonly { readonly content: string }[] | undefined;
  },
>(request: R, redact: Redactor | undefined): R {
  if (redact === undefined) return request;
  const apply = (text: string): string => {
    const redacted = redact(text);
    if (typeof redacted !== 'string') {
      throw new ConfigError('config.redact must return a string', [
        { path: 'redact', message: `returned ${typeof redacted}, expected a string` },
      ]);
    }
    return redacted;
  };
  return {
    ...request,
    message: apply(request.message),
    ...(request.history === undefined
      ? {}
      : { history: request.history.map((entry) => ({ ...entry, content: apply(entry.content) })) }),
  };
}
