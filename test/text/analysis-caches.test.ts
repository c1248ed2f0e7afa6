import { describe, expect, it } from 'vitest';

import { analyzeTerms, clearAnalysisCaches, splitContent } from '../../src/text/analyzer.js';

describe('clearAnalysisCaches', () => {
  it('forgets remembered stems and folds without changing any analysis', () => {
    const texts = [
      'Refunds are issued within 14 days of the return.',
      'Die Garantie gilt nicht für Schäden durch einen Sturz. Wann endet sie?',
      'Le café coûte cher à Paris, pourquoi?',
    ];
    const before = texts.map((text) => [analyzeTerms(text), splitContent(text)]);
    clearAnalysisCaches();
    expect(texts.map((text) => [analyzeTerms(text), splitContent(text)])).toEqual(before);
  });
});
