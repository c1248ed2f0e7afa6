import { describe, expect, it } from 'vitest';
import { createMemoryKeywordIndex } from '../../src/adapters/memory/keyword-index.js';
import { tokenizeForIndex } from '../../src/query/bm25.js';
import { analyzeTerms, createTextAnalyzer } from '../../src/text/analyzer.js';
import { stemmedTerms } from '../../src/text/stem.js';
import { identifierParts } from '../../src/text/identifiers.js';

const ascii = (text: string) => identifierParts(text, true);

describe('identifierParts', () => {
  it('cuts camelCase and PascalCase names into their words', () => {
    expect(ascii('Set maxBatchSize or requiredOption on a MockAgent')).toEqual([
      'max',
      'batch',
      'size',
      'required',
      'option',
      'mock',
      'agent',
    ]);
    // Two-letter function words are parts too (their terms are dropped as stop words).
    expect(ascii('isEmpty onClick indexOf')).toEqual(['is', 'empty', 'on', 'click', 'index', 'of']);
  });

  it('cuts an acronym off only where the name is written as code', () => {
    expect(ascii('### parseURL(input, defaultProto?)')).toEqual([
      'parse',
      'url',
      'default',
      'proto',
    ]);
    expect(ascii('call obj.toJSON and el.innerHTML')).toEqual(['to', 'json', 'inner', 'html']);
    // In prose an acronym after a lower-case word is one name; so is a sentence-final one.
    expect(ascii('Levels of microRNA, lncRNA and pppRNA. We call parseURL.')).toEqual([]);
  });

  it('leaves names of biology, versions, URLs and hashes whole', () => {
    const text =
      'iPhone mRNA siRNA miRNAs IL6 NFkB HeLa TatAd HbA1c TNFalpha COVID-19 v1.2.3 sha256 ' +
      'https://example.com/a/b 3fa9c2e dGhpcyBpcyBh';
    expect(ascii(text)).toEqual([]);
  });

  it('is empty for text without a lower-case letter before a capital', () => {
    expect(ascii('Plain prose. ALL CAPS. snake_case and kebab-case split already.')).toEqual([]);
  });

  it('reads text outside ASCII too, with caseless scripts ending a word', () => {
    expect(identifierParts('Die maxBatchSize für parseURL(を使う)', false)).toEqual([
      'max',
      'batch',
      'size',
      'parse',
      'url',
    ]);
    expect(identifierParts('Größe ÄrgerBox', false)).toEqual(['ärger', 'box']);
  });
});

describe('identifier parts in the keyword analysis', () => {
  it('adds the parts after the words, and keeps the whole name as a term', () => {
    expect(tokenizeForIndex('Call parseURL(input) with maxBatchSize')).toEqual([
      'call',
      'parseurl',
      'input',
      'maxbatchsiz',
      'pars',
      'url',
      'max',
      'batch',
      'siz',
    ]);
    expect(tokenizeForIndex('Plain English text gives the terms it always gave')).toEqual([
      'plain',
      'english',
      'text',
      'giv',
      'term',
      'alway',
      'gav',
    ]);
  });

  it('is for keyword indexes only: the guard, the graph and the answer checks read the words', () => {
    expect(stemmedTerms('Call parseURL(input) with maxBatchSize')).toEqual([
      'call',
      'parseurl',
      'input',
      'maxbatchsiz',
    ]);
    expect(analyzeTerms('Set maxBatchSize')).toEqual(['set', 'maxbatchsiz']);
  });

  it('applies to a configured language and to text outside ASCII', () => {
    expect(createTextAnalyzer({ language: 'de' }).terms('Setze maxBatchSize')).toEqual([
      'setz',
      'maxbatchsiz',
      'max',
      'batch',
      'siz',
    ]);
    expect(analyzeTerms('Café: set maxBatchSize', 'auto', true)).toEqual([
      'caf',
      'set',
      'maxbatchsiz',
      'max',
      'batch',
      'siz',
    ]);
  });

  it('finds a section named by an identifier from the words of a question, both ways', async () => {
    const index = createMemoryKeywordIndex();
    await index.add(
      'docs',
      [
        { id: 'parse', text: '### parseURL(input)\n\nTakes a string and returns its protocol.' },
        { id: 'path', text: '### withBase(input, base)\n\nJoins the input to a base path.' },
        { id: 'batch', text: 'The number of items per request is set by the batch size option.' },
      ].map((record) => ({ ...record, metadata: {} })),
    );
    const top = async (query: string) => (await index.search('docs', query, { k: 1 }))[0]?.id;
    expect(await top('How do I parse a URL?')).toBe('parse');
    expect(await top('What does parseURL return?')).toBe('parse');
    // A question that writes the name finds the words the docs use.
    expect(await top('What is maxBatchSize?')).toBe('batch');
  });
});
