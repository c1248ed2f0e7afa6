/**
 * One analysis of a chunk at ingest gives exactly what the embedder, the keyword index and the
 * graph each got from analysing their own text of the chunk (`src/text/chunk-analysis.ts`).
 */
import { describe, expect, it } from 'vitest';
import { createHashingEmbedder } from '../../src/adapters/hashing/embedder.js';
import { termFrequencies } from '../../src/ingest/graph-terms.js';
import { indexTexts } from '../../src/ingest/prepare.js';
import { analyzeTerms, splitContent } from '../../src/text/analyzer.js';
import {
  analyzeChunk,
  CHUNK_ANALYSES,
  embedderRecipe,
  takesChunkAnalyses,
} from '../../src/text/chunk-analysis.js';

const GRAPH = { characters: 300, minLength: 4 };

/** What each consumer computes from its own text, the keyword terms grouped as the index counts them. */
function separately(title: string | undefined, body: string, section?: string) {
  const { indexText, keywordText } = indexTexts(title, section, body);
  return {
    indexText,
    keywordText,
    split: splitContent(indexText),
    keywordCounts: counts(analyzeTerms(keywordText)),
    keywordLength: analyzeTerms(keywordText).length,
    graphTerms: termFrequencies(indexText.slice(0, GRAPH.characters), GRAPH.minLength),
  };
}

/** Each term's count, in order of first occurrence (what the keyword index's postings hold). */
function counts(terms: readonly string[]): [string, number][] {
  const found = new Map<string, number>();
  for (const term of terms) found.set(term, (found.get(term) ?? 0) + 1);
  return [...found];
}

function shared(title: string | undefined, body: string, section?: string) {
  const { indexText, keywordText } = indexTexts(title, section, body);
  const header = indexText === body ? 0 : indexText.length - body.length - 1;
  return analyzeChunk(indexText, keywordText, header, { keyword: true, graph: GRAPH });
}

const VOCABULARY = (
  'the of and protein cells expression were in mice increased reduced a patients ' +
  'risk 2019 p53 studies TNF-alpha signalling is to was associated with higher levels ' +
  'Café naïve résumé Straße co-operation 12.5 mg/kg IL-6 (n=42) ; : — ± β-catenin'
).split(' ');

/** A pseudo-random text from the vocabulary (a fixed seed: the same texts every run). */
function text(seed: number, words: number): string {
  // Odd seeds: ASCII words only (the graph's terms are shared for ASCII text only).
  const vocabulary = seed % 2 === 1 ? VOCABULARY.slice(0, 26) : VOCABULARY;
  let state = seed;
  const parts: string[] = [];
  for (let index = 0; index < words; index++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    parts.push(vocabulary[state % vocabulary.length]!);
  }
  return parts.join(state % 3 === 0 ? '  ' : ' ');
}

describe('analyzeChunk', () => {
  it('gives the words, keyword terms and graph terms the consumers compute themselves', () => {
    const cases: [string | undefined, string, string?][] = [
      ['Guide', 'Install the package first.', 'Getting started › Install'],
      ['Guide', 'Apply the café settings.', 'Réglages'],
      ['Parking permits', 'Apply at the city office. Permits are issued within ten days.'],
      [undefined, 'Refunds are issued within 14 days of the request.'],
      // A header longer than the graph's prefix, a word cut at character 300.
      ['A'.repeat(10) + ' title '.repeat(60), 'The body of the chunk.'],
      ['Expression', `${'x'.repeat(290)} abcdefghijklmnopqrstuvwxyz continues here`],
      // Non-ASCII English: the keyword and embedder parts are shared, the graph reads its own.
      ['Café culture', 'The naïve résumé was reviewed — twice — by the Straße committee.'],
    ];
    for (let seed = 1; seed <= 60; seed++) {
      cases.push([seed % 4 === 1 ? undefined : text(seed * 7, 1 + (seed % 9)), text(seed, 80)]);
    }
    let graphShared = 0;
    for (const [title, body, section] of cases) {
      const expected = separately(title, body, section);
      const analysis = shared(title, body, section);
      expect(analysis, `${title} / ${body}`).toBeDefined();
      expect(analysis!.text).toBe(expected.indexText);
      expect(analysis!.split).toEqual(expected.split);
      expect(counts(analysis!.keywordTerms!)).toEqual(expected.keywordCounts);
      expect(analysis!.keywordTerms!.length).toBe(expected.keywordLength);
      if (analysis!.graphTerms !== undefined) {
        graphShared++;
        expect([...analysis!.graphTerms]).toEqual([...expected.graphTerms]);
      }
    }
    expect(graphShared).toBeGreaterThan(10);
  });

  it('lists each header term three times in a row (one postings lookup, not three)', () => {
    const analysis = shared('Parking permits', 'Apply now.');
    expect(analysis!.keywordTerms).toEqual([
      'park',
      'park',
      'park',
      'permit',
      'permit',
      'permit',
      'apply',
      'now',
    ]);
  });

  it('declines text in another language or written without spaces', () => {
    expect(shared('Garantie', 'Die Garantie gilt für alle Fahrräder, die wir verkaufen.')).toBe(
      undefined,
    );
    expect(shared(undefined, '保証期間は2年です')).toBeUndefined();
    // A German word in the header, counted three times in the keyword text, makes it German
    // there (and only there): the chunk is left to each consumer.
    expect(splitContent('der Preis\nthe bikes').content).toEqual(['der', 'preis', 'bikes']);
    expect(analyzeTerms('der Preis\nder Preis\nder Preis\nthe bikes')).toEqual([
      'preis',
      'preis',
      'preis',
      'the',
      'bik',
    ]);
    expect(shared('der Preis', 'the bikes')).toBeUndefined();
  });
});

describe('the hashing embedder and shared analyses', () => {
  it('embeds the same vectors from an analysis as from the text, and only for that text', async () => {
    const embedder = createHashingEmbedder({ dimensions: 64 });
    expect(takesChunkAnalyses(embedder)).toBe(true);
    expect(takesChunkAnalyses({ ...embedder })).toBe(false);
    expect(takesChunkAnalyses({ inner: embedder })).toBe(true);
    // Only the registered object, its own `embed` in place, can be built again elsewhere.
    const recipe = embedderRecipe(embedder);
    expect(recipe).toEqual({
      dimensions: 64,
      wordWeight: 1,
      bigramWeight: 0,
      charWeight: 1.5,
      minNgram: 3,
      maxNgram: 5,
      maxBatchSize: 256,
    });
    expect(Object.isFrozen(recipe)).toBe(true);
    expect(embedderRecipe({ ...embedder })).toBeUndefined();
    expect(embedderRecipe({ inner: embedder })).toBeUndefined();
    const replaced = createHashingEmbedder({ dimensions: 64 });
    replaced.embed = async (texts) => texts.map(() => new Float32Array(64));
    expect(embedderRecipe(replaced)).toBeUndefined();
    const texts = ['Parking permits\nApply at the city office.', 'Refunds within 14 days.'];
    const analyses = [
      analyzeChunk(texts[0]!, 'unused', 15, { keyword: false }),
      analyzeChunk('Another text entirely.', 'unused', 0, { keyword: false }),
    ];
    const plain = await createHashingEmbedder({ dimensions: 64 }).embed(texts);
    const given = await embedder.embed(texts, {
      [CHUNK_ANALYSES]: (index: number) => analyses[index],
    } as object);
    expect(given.map((vector) => [...vector])).toEqual(plain.map((vector) => [...vector]));
  });
});
