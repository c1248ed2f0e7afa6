import { describe, expect, it } from 'vitest';

import { createHashingEmbedder } from '../../src/adapters/hashing/embedder.js';
import { analyzeTerms, clearAnalysisCaches, splitContent } from '../../src/text/analyzer.js';
import { stem, STOP_WORDS } from '../../src/text/english.js';
import { latinLanguage } from '../../src/text/language-detection.js';
import { clearLexicon, lexiconGeneration, lexiconWords } from '../../src/text/lexicon.js';
import { segmentText } from '../../src/text/segment.js';

/** ASCII texts in the detection's languages, English with many function words, and edge cases. */
const TEXTS = [
  'The refund policy: refunds are issued within 14 days of the return.',
  'Die Garantie gilt nicht fuer Schaeden, die durch einen Sturz entstehen. Wann endet sie?',
  'La garantie ne couvre pas les dommages dus a une chute. Comment faire une demande?',
  'El reembolso se emite en un plazo de 14 dias y la tienda no acepta devoluciones sin recibo.',
  'Il rimborso viene emesso entro 14 giorni, e la garanzia non copre i danni.',
  'O reembolso e emitido em 14 dias e a garantia nao cobre danos por queda.',
  'De garantie geldt niet voor schade door een val. Wanneer kan ik het terugsturen?',
  `${'the cells of the mice were in the lab and it was of note that '.repeat(20)}end`,
  `${'der die das und '.repeat(70)} the of and`,
  'a an the of',
  '',
  '12 34 5678',
];

/** The embedder's vector of a text as it was made before the lexicon: from `splitContent`. */
describe('lexicon', () => {
  it('detects the language of ASCII text exactly as latinLanguage does', () => {
    for (const text of TEXTS) {
      const segmented = segmentText(text);
      const found = lexiconWords(segmented.words);
      expect(found.language, text).toBe(latinLanguage(segmented, text, 'auto'));
    }
  });

  it('gives the terms of the English stem and stop list, in every generation', () => {
    const expected = (text: string) =>
      segmentText(text)
        .words.filter((word) => !STOP_WORDS.has(word))
        .map((word) => stem(word));
    const english = TEXTS[0]!;
    const first = analyzeTerms(english);
    expect(first).toEqual(expected(english));
    const generation = lexiconGeneration();
    clearLexicon();
    expect(lexiconGeneration()).not.toBe(generation);
    expect(analyzeTerms(english)).toEqual(first);
    clearAnalysisCaches();
    expect(analyzeTerms(english)).toEqual(first);
  });

  it('leaves the hashing embedder’s vectors unchanged when the lexicon forgets its words', async () => {
    const embedder = createHashingEmbedder({ dimensions: 64 });
    const texts = [...TEXTS, 'Mice cells, lab notes and the refund of 14 days.'];
    const before = (await embedder.embed(texts)).map((vector) => Array.from(vector));
    // Renumbered words: the embedder must not read its old numbers' features for the new ones.
    clearLexicon();
    await createHashingEmbedder({ dimensions: 64 }).embed(['zebra yak xylophone walrus', 'cells']);
    const after = (await embedder.embed([...texts].reverse())).map((vector) => Array.from(vector));
    expect(after.reverse()).toEqual(before);
    expect(
      (await createHashingEmbedder({ dimensions: 64 }).embed(texts)).map((v) => Array.from(v)),
    ).toEqual(before);
  });

  it('embeds a text of stop words only from its stop words, as splitContent’s words', () => {
    expect(splitContent('a an the of').content).toEqual([]);
    return createHashingEmbedder({ dimensions: 32 })
      .embed(['a an the of', 'the of'])
      .then(([all, two]) => expect(Array.from(all!)).not.toEqual(Array.from(two!)));
  });
});
