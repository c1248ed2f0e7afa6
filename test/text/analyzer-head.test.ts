/**
 * `analyzeTermsWithHead` analyses a repeated head once (a chunk's header, weighted by repetition
 * in the keyword index) and must give the terms of the whole text as a keyword index posts them:
 * the same terms as often, first occurring in the same order (the same words, the same detected
 * language, the same stems), a head term's repeats together.
 */
import { describe, expect, it } from 'vitest';
import {
  analyzeRepeatedHead,
  analyzeTerms,
  analyzeTermsWithHead,
} from '../../src/text/analyzer.js';
import { defaultKeywordTerms } from '../../src/adapters/memory/keyword-index.js';
import { prepareChunks } from '../../src/ingest/prepare.js';
import { createEstimateTokenizer } from '../../src/adapters/tokenizer/estimate.js';

const heads = [
  'Parking permits\n',
  'The refund policy\nReturns › Digital goods\n',
  // Function words in the head decide the language of a short body.
  'Die Garantie und der Umtausch\n',
  'Wie lange gilt die Garantie für das Fahrrad\n',
  'Conditions de la garantie et du remboursement\n',
  // Ends inside a word: repeating it joins words ("fooFoo"), so it is analysed whole.
  'Parking',
  'Garantie für Fahrräder\n',
  '保証期間\n',
  '保証期間は2年です\n',
  // Greek final sigma at the head's end, a decomposed accent, full-width letters (NFKC).
  'ΟΔΟΣ\n',
  'Cafe\u0301 Ｇarantie ﬁn\n',
  'Ñandú y cigüeña\n',
  'Über die Rückgabe\r\n',
  '...\n',
  '',
  'a\n',
];

/** Each term with its count, in order of first occurrence: what a keyword index posts. */
function occurrences(terms: readonly string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return [...counts];
}

const bodies = [
  'Apply at the city office with proof of address.',
  'Die Garantie gilt zwei Jahre ab dem Kaufdatum und der Händler ist der erste Ansprechpartner.',
  'Le remboursement est effectué dans les quatorze jours, et la garantie couvre les pièces.',
  'the and of to in '.repeat(30) + 'und der die das ist '.repeat(30),
  'der die und '.repeat(80) + 'the of and',
  'Café crème, naïve façade.',
  '保証期間は2年です。',
  '',
  '   ',
  'running runs ran 42 x86_64 e-mail',
  // Starts with a combining mark and a sigma; letter hints past the first 4,000 characters.
  '\u0301ΣΟΦΙΑ ΟΔΟΣ and the rest',
  'the of and '.repeat(400) + 'Größe über Fuß',
  'x '.repeat(1990) + 'ñandú',
  'タイ語 ภาษาไทย 한국어 Русский текст',
];

describe('analyzeTermsWithHead', () => {
  for (const language of ['auto', 'en', 'de', 'fr'] as const) {
    it(`equals analyzeTerms of the whole text (${language})`, () => {
      for (const head of heads) {
        for (const body of bodies) {
          for (const times of [0, 1, 3, 7]) {
            const whole = analyzeTerms(head.repeat(times) + body, language);
            const once = analyzeTermsWithHead(head, times, body, language);
            expect(occurrences(once)).toEqual(occurrences(whole));
            expect(once.length).toBe(whole.length);
          }
        }
      }
    });
  }

  it("finds the repeated header at a text's start and analyses it once", () => {
    for (const head of heads) {
      for (const body of bodies) {
        for (const times of [0, 1, 2, 3, 7]) {
          const text = head.repeat(times) + body;
          const once = analyzeRepeatedHead(text);
          expect(occurrences(once)).toEqual(occurrences(analyzeTerms(text)));
          expect(once.length).toBe(analyzeTerms(text).length);
        }
      }
    }
    // A title and a section, three times: the block is both lines; a term's repeats together.
    expect(analyzeRepeatedHead('Bikes\nReturns\nBikes\nReturns\nBikes\nReturns\nok')).toEqual([
      'bik',
      'bik',
      'bik',
      'return',
      'return',
      'return',
      'ok',
    ]);
    // No repeated block: the text analysed as it is.
    expect(analyzeRepeatedHead('Bikes\nBiker\nBikes')).toEqual(analyzeTerms('Bikes\nBiker\nBikes'));
  });

  it("gives a head term's repeats together", () => {
    expect(analyzeTermsWithHead('parking permits\n', 3, 'apply online')).toEqual([
      'park',
      'park',
      'park',
      'permit',
      'permit',
      'permit',
      'apply',
      'onlin',
    ]);
  });

  it('detects the language on the repeated head and the body together', () => {
    // Alone the body is English; three German heads before it make the whole German.
    const head = 'der die und das ist nicht\n';
    const body = 'the gardens of the houses';
    expect(analyzeTerms(body)).not.toContain('the');
    const whole = analyzeTerms(head.repeat(3) + body);
    expect(whole).toContain('the');
    expect(occurrences(analyzeTermsWithHead(head, 3, body))).toEqual(occurrences(whole));
  });

  it("gives the memory index's default analysis of prepared chunks the analyser's terms", async () => {
    const tokenizer = createEstimateTokenizer();
    const doc = {
      id: 'd',
      title: 'Warranty for bicycles',
      text: '# Returns\n\nBikes may be returned within 30 days of the purchase, with the receipt.\n\n# Repairs\n\nFrames are covered for five years; wheels and brakes for two.',
    };
    const chunks = await prepareChunks(doc, 'r', { chunkSize: 16, chunkOverlap: 0 }, tokenizer);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.some((chunk) => chunk.metadata['section'] !== undefined)).toBe(true);
    for (const chunk of chunks) {
      for (const language of ['auto', 'de'] as const) {
        expect(occurrences(defaultKeywordTerms(language)(chunk.keywordText))).toEqual(
          occurrences(analyzeTerms(chunk.keywordText, language)),
        );
      }
    }
  });
});
