/**
 * `analyzeTermsWithHead` analyses a repeated head once (a chunk's header, weighted by repetition
 * in the keyword index) and must give exactly the terms of the whole text: the same words, the
 * same detected language, the same stems.
 */
import { describe, expect, it } from 'vitest';
import { analyzeTerms, analyzeTermsWithHead } from '../../src/text/analyzer.js';
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
  '...\n',
  '',
  'a\n',
];

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
];

describe('analyzeTermsWithHead', () => {
  for (const language of ['auto', 'en', 'de', 'fr'] as const) {
    it(`equals analyzeTerms of the whole text (${language})`, () => {
      for (const head of heads) {
        for (const body of bodies) {
          for (const times of [0, 1, 3, 7]) {
            const whole = analyzeTerms(head.repeat(times) + body, language);
            expect(analyzeTermsWithHead(head, times, body, language)).toEqual(whole);
          }
        }
      }
    });
  }

  it('detects the language on the repeated head and the body together', () => {
    // Alone the body is English; three German heads before it make the whole German.
    const head = 'der die und das ist nicht\n';
    const body = 'the gardens of the houses';
    expect(analyzeTerms(body)).not.toContain('the');
    const whole = analyzeTerms(head.repeat(3) + body);
    expect(whole).toContain('the');
    expect(analyzeTermsWithHead(head, 3, body)).toEqual(whole);
  });

  it('gives prepared chunks the terms the index would compute from their keyword text', async () => {
    const tokenizer = createEstimateTokenizer();
    const doc = {
      id: 'd',
      title: 'Warranty for bicycles',
      text: '# Returns\n\nBikes may be returned within 30 days of the purchase, with the receipt.\n\n# Repairs\n\nFrames are covered for five years; wheels and brakes for two.',
    };
    const settings = { chunkSize: 16, chunkOverlap: 0, keywordLanguage: 'auto' as const };
    const chunks = await prepareChunks(doc, 'r', settings, tokenizer);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.keywordTerms).toEqual(analyzeTerms(chunk.keywordText));
    const none = await prepareChunks(doc, 'r', { chunkSize: 16, chunkOverlap: 0 }, tokenizer);
    expect(none.every((chunk) => chunk.keywordTerms === undefined)).toBe(true);
  });
});
