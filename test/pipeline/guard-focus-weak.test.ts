import { describe, expect, it } from 'vitest';
import { indexTerms } from '../../src/pipeline/guard.js';
import { mayBeWeakFocus, weakFocus } from '../../src/pipeline/guard-focus.js';

const questions = [
  'How long does the battery last?',
  'Which flag enables --watch mode?',
  'Vitamin D deficiency raises fracture risk.',
  'What is the refund policy for zebracorns?',
  'refund policy?  ',
  'Tell me about helmets',
];
const chunks = [
  ['Riders must be at least 16 years old.'],
  ['A fully charged battery lasts about 60 kilometres.', 'Refunds take five days.'],
];

describe('mayBeWeakFocus', () => {
  it('is true whenever weakFocus can find a word missing, whatever the chunks', () => {
    let found = 0;
    for (const question of questions) {
      for (const topScore of [0, 0.3, 0.6, 0.74, 0.75, 0.9]) {
        for (const texts of chunks) {
          const missing = weakFocus(question, texts, topScore, indexTerms);
          if (missing.length > 0) found++;
          if (!mayBeWeakFocus(question, topScore)) expect(missing).toEqual([]);
        }
      }
    }
    expect(found).toBeGreaterThan(5);
  });
});
