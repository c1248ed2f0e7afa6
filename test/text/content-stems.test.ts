import { describe, expect, it } from 'vitest';

import { analyzeTerms, contentStems, splitContent } from '../../src/text/analyzer.js';
import { latinLanguage } from '../../src/text/language-detection.js';
import { segmentText } from '../../src/text/segment.js';
import { stem } from '../../src/text/stem.js';
import { contentWords, STOP_WORDS } from '../../src/text/words.js';
import { settledHeap } from '../fixtures/heap.js';

const VOCABULARY = (
  'the of and to that is was a in it for with the the the of and what how which ' +
  'der die das und ist nicht mit eine wann le la les des et est une pour qui el los las del ' +
  'y es una por de het een van niet o os da não il di che per ' +
  'refunds refunded mutations mutation analysis class virus running stopped ' +
  'phosphorylation mitochondrial immunohistochemistry 2024 19 x7 ' +
  'café über señor straße coûte'
).split(' ');
const GLUE = [' ', ' ', ' ', ', ', '. ', '\n', ' (', ') ', "'s "];

function randomTexts(count: number, seed: number): string[] {
  const next = () => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  const texts: string[] = [];
  for (let index = 0; index < count; index++) {
    const length = Math.floor(next() ** 2 * 260);
    // Most texts draw from a part of the vocabulary (one language more than the others).
    const from = Math.floor(next() * VOCABULARY.length);
    const span = 8 + Math.floor(next() * VOCABULARY.length);
    let text = '';
    for (let word = 0; word < length; word++) {
      const picked = VOCABULARY[(from + Math.floor(next() * span)) % VOCABULARY.length]!;
      text += (next() < 0.1 ? picked.toUpperCase() : picked) + GLUE[Math.floor(next() * 9)]!;
    }
    texts.push(text);
  }
  return texts;
}

describe('contentStems and the English terms', () => {
  const texts = randomTexts(2000, 7);

  it('gives the terms and content words of the analysis by language', () => {
    let other = 0;
    for (const text of texts) {
      const segmented = segmentText(text);
      const language = latinLanguage(segmented, text, 'auto');
      const english = segmented.ascii && language === 'en';
      if (segmented.ascii && language !== 'en') other++;
      const words = segmented.words.filter((word) => !STOP_WORDS.has(word));
      expect(analyzeTerms(text)).toEqual(english ? words.map(stem) : analyzeTerms(text, language));
      expect(splitContent(text).content).toEqual(
        english ? words : splitContent(text, language).content,
      );
      for (const setting of ['en', 'de', 'ja'] as const) {
        const fixed = latinLanguage(segmented, text, setting);
        if (segmented.ascii && fixed === 'en') {
          expect(analyzeTerms(text, setting)).toEqual(words.map(stem));
        }
      }
    }
    // Both paths are read: ASCII texts detected as another language too.
    expect(other).toBeGreaterThan(50);
  });

  it('gives contentStems as the stems of the content words', () => {
    for (const text of [
      ...texts,
      '保証期間は2年です',
      'ああああ いいいい',
      'Die Straße ist lang',
    ]) {
      expect(contentStems(text)).toEqual(contentWords(text).map(stem));
    }
  });
});

describe('the analysis caches', () => {
  it('keep a long word, not the text it was cut from', () => {
    const heap = settledHeap();
    const texts = 60;
    const before = heap();
    for (let index = 0; index < texts; index++) {
      // A 200,000-character text with one long word of its own, in the stem and fold caches.
      const filler = 'Lorem ipsum dolor. '.repeat(10_000);
      analyzeTerms(`${filler} Unprecedentedness${index}x ${filler}`);
      analyzeTerms(`${filler} Überraschendeswort${index}x ${filler}`);
    }
    // Kept whole, the texts (one byte a character once lower-cased) would be 24 MB.
    expect(heap() - before).toBeLessThan(4 * 2 ** 20);
  });
});
