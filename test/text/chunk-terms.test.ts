import { describe, expect, it } from 'vitest';
import { analyzeTerms } from '../../src/text/analyzer.js';
import { chunkTerms, headedChunkTerms, type TermLookup } from '../../src/text/chunk-terms.js';
import { forgetTextAnalyses } from '../../src/util/second-sight.js';

/** Whether `lookup` holds exactly `expected` among the terms of both texts. */
function sameTerms(lookup: TermLookup, expected: ReadonlySet<string>, probe: Iterable<string>) {
  for (const term of probe) expect([term, lookup.has(term)]).toEqual([term, expected.has(term)]);
}

const BODIES = [
  'Refunds are paid within 14 days of the return reaching the warehouse.',
  'Die Garantie gilt für alle Fahrräder und wird nicht verlängert, wenn das Rad repariert wird.',
  'Die Garantie gilt zwei Jahre und wird von dem Händler und nicht von dem Hersteller gegeben.',
  'La garantie couvre le cadre et la fourche pendant deux ans pour les vélos achetés en ligne.',
  'The parse() function returns a Promise of the parsed header values.',
  '保証期間は購入日から2年間です。',
  '',
];
const HEADERS = [
  ['refund-policy.md', 'Refunds', 'Money back › Timing'],
  ['garantie.md', 'Die und der mit dem von das ist', ''],
  ['faq', null, undefined],
  ['café.md', 'Café', 'Über uns'],
  ['the-of-and', 'The and of to in is it that', 'for with as on'],
] as const;

describe('headedChunkTerms', () => {
  it('gives the terms analyzeTerms gives the joined text, whatever the languages', () => {
    for (const body of BODIES) {
      for (const [id, title, section] of HEADERS) {
        const header = `${id}\n${title ?? ''}\n${section ?? ''}`;
        const joined = `${header}\n${body}`;
        const expected = new Set(analyzeTerms(joined));
        const probe = new Set([
          ...expected,
          ...analyzeTerms(body),
          ...analyzeTerms(header),
          ...analyzeTerms(body, 'en'),
          ...analyzeTerms(body, 'de'),
          ...analyzeTerms(header, 'de'),
        ]);
        sameTerms(headedChunkTerms(header, body), expected, probe);
        // Seen again (kept analysis), the same.
        sameTerms(headedChunkTerms(header, body), expected, probe);
      }
    }
  });

  it('detects the language of the header and the body together', () => {
    // Alone the body is English; under a header of German function words the joined text is
    // German, and its words are stemmed as German ("wird" is a German stop word).
    const body = 'Garantie wird gegeben';
    const header = 'doc\nDie und der mit\ndem von das';
    expect(analyzeTerms(`${header}\n${body}`)).not.toContain('wird');
    expect(chunkTerms(body).has('wird')).toBe(true);
    expect(headedChunkTerms(header, body).has('wird')).toBe(false);
  });
});

describe('chunkTerms', () => {
  it('is the set of analyzeTerms of the text, before and after forgetting', () => {
    for (const body of BODIES) {
      expect([...chunkTerms(body)]).toEqual([...new Set(analyzeTerms(body))]);
      forgetTextAnalyses();
      expect([...chunkTerms(body)]).toEqual([...new Set(analyzeTerms(body))]);
    }
  });
});
