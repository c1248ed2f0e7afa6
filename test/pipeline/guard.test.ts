import { describe, expect, it } from 'vitest';
import {
  decideGuard,
  DEFAULT_GUARD_MODEL,
  guardFeatures,
  guardProbability,
  indexTerms,
} from '../../src/pipeline/guard.js';
import {
  answeredByType,
  statesClockTime,
  statesMoney,
} from '../../src/pipeline/guard-answer-type.js';

const chunk = (text: string, vectorScore: number | null = null) => ({ text, vectorScore });

/** Chunks that count how often the guard reads their text (`reads()` since the last call). */
function readCounter() {
  let read = 0;
  const counted = (text: string, vectorScore: number) => ({
    get text() {
      read++;
      return text;
    },
    vectorScore,
  });
  const reads = () => {
    const count = read;
    read = 0;
    return count;
  };
  return { counted, reads };
}

describe('decideGuard', () => {
  it('refuses when nothing was retrieved', () => {
    const decision = decideGuard({ query: 'refunds', chunks: [], topScore: 0, indexSize: 3 });
    expect(decision).toMatchObject({ guard: true, reason: 'no-sources', adaptive: true });
  });

  it('lets an explicit minSimilarity decide on the best score', () => {
    const input = {
      query: 'How fast are refunds?',
      chunks: [chunk('Refunds are issued within 14 days of the request.', 0.4)],
      topScore: 0.3,
      indexSize: 1,
    };
    // The adaptive model answers this one …
    expect(decideGuard(input).guard).toBe(false);
    // … a user's threshold above the best score refuses it, one below answers.
    expect(decideGuard({ ...input, minSimilarity: 0.35 })).toMatchObject({
      guard: true,
      reason: 'low-similarity',
      evidence: 0.3,
      threshold: 0.35,
      adaptive: false,
    });
    expect(decideGuard({ ...input, minSimilarity: 0.2 }).guard).toBe(false);
  });

  it('asks more of the same overlap in a large index than in a small one', () => {
    const input = {
      query: 'Do I need a helmet?',
      chunks: [chunk('Helmets are recommended but not required for adults.', 0.25)],
      topScore: 0.4,
    };
    expect(decideGuard({ ...input, indexSize: 8 }).guard).toBe(false);
    expect(decideGuard({ ...input, indexSize: 50_000 })).toMatchObject({
      guard: true,
      reason: 'low-similarity',
    });
  });

  it('judges each chunk and answers from the best one', () => {
    const input = {
      query: 'How old must riders be?',
      topScore: 0.5,
      indexSize: 8,
    };
    const unrelated = chunk('A fully charged battery lasts about 60 kilometres.', 0.05);
    const related = chunk('Riders must be at least 16 years old to ride an e-bike.', 0.3);
    expect(decideGuard({ ...input, chunks: [unrelated] }).guard).toBe(true);
    expect(decideGuard({ ...input, chunks: [unrelated, related] }).guard).toBe(false);
  });
});

describe('decideGuard: the best chunk without analysing every chunk', () => {
  const texts = [
    'Refunds are issued within 14 days of the request.',
    'Shipping is free for orders above 50 euros.',
    'The store opens at 9:00 and closes at 18:00.',
    'Refund requests need the order number and the receipt.',
    'Gift cards cannot be refunded or exchanged.',
    'Returned items must be unused and in their original packaging.',
    'Customer service answers refund questions by e-mail.',
  ];
  const queries = [
    'How fast are refunds issued?',
    'When does the store open in the morning?',
    'Do gift cards get refunded?',
    'What does shipping cost?',
    'quantum chromodynamics of gluons',
    'the',
  ];

  it('gives the maximum over all chunks, whatever their order and scores', () => {
    let seed = 11;
    const next = () => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;
    for (let round = 0; round < 300; round++) {
      const query = queries[round % queries.length]!;
      const chunks = Array.from({ length: 1 + Math.floor(next() * 6) }, () =>
        chunk(
          texts[Math.floor(next() * texts.length)]!,
          next() < 0.15 ? null : Math.round(next() * 100) / 100,
        ),
      );
      const indexSize = [1, 8, 5_000][round % 3]!;
      const terms = indexTerms(query);
      const expected = Math.max(
        ...chunks.map((each) => guardProbability(guardFeatures(each, terms, indexSize))),
      );
      const decision = decideGuard({ query, chunks, topScore: 0.5, indexSize });
      expect(decision.evidence).toBe(expected);
    }
  });

  it('does not read a chunk that cannot beat the best one even with every query term', () => {
    const { counted, reads } = readCounter();
    const best = counted('Refunds are issued within 14 days of the request.', 0.9);
    const far = counted('Refunds are issued within 14 days of the request.', 0.05);
    decideGuard({
      query: 'How fast are refunds issued?',
      chunks: [far, best],
      topScore: 0.9,
      indexSize: 8,
    });
    const readBest = reads();
    expect(readBest).toBeGreaterThan(0);
    // A weight that lowers the probability as terms match: every chunk is read.
    decideGuard({
      query: 'How fast are refunds issued?',
      chunks: [far, best],
      topScore: 0.9,
      indexSize: 8,
      model: { ...DEFAULT_GUARD_MODEL, matchedTerms: -1 },
    });
    expect(reads()).toBe(2 * readBest);
  });
});

describe('decideGuard with bestEvidence: false (the decision without the best probability)', () => {
  const texts = [
    'Refunds are issued within 14 days of the request.',
    'Shipping is free for orders above 50 euros.',
    'Refund requests need the order number and the receipt.',
    'Gift cards cannot be refunded or exchanged.',
  ];
  const queries = ['How fast are refunds issued?', 'Do gift cards get refunded?', 'quantum gluons'];

  it('decides as the exact guard does; evidence is exact when it refuses, at or above the cut when it answers', () => {
    let seed = 5;
    const next = () => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;
    let answered = 0;
    let refused = 0;
    for (let round = 0; round < 300; round++) {
      const query = queries[round % queries.length]!;
      const chunks = Array.from({ length: 1 + Math.floor(next() * 5) }, () =>
        chunk(texts[Math.floor(next() * texts.length)]!, Math.round(next() * 100) / 100),
      );
      const input = { query, chunks, topScore: 0.5, indexSize: [1, 8, 5_000][round % 3]! };
      const exact = decideGuard(input);
      const first = decideGuard({ ...input, bestEvidence: false });
      expect(first.guard).toBe(exact.guard);
      if (exact.guard) {
        refused++;
        expect(first).toEqual(exact);
      } else {
        answered++;
        expect(first.evidence).toBeGreaterThanOrEqual(DEFAULT_GUARD_MODEL.cut);
        expect(first.evidence).toBeLessThanOrEqual(exact.evidence);
      }
    }
    expect(answered).toBeGreaterThan(20);
    expect(refused).toBeGreaterThan(20);
  });

  it('analyses no chunk after the first one that reaches the cut', () => {
    const { counted, reads } = readCounter();
    const input = {
      query: 'How fast are refunds issued?',
      chunks: [
        counted('Refunds are issued within 14 days of the request.', 0.9),
        counted('Refund requests need the order number and the receipt.', 0.85),
        counted('Gift cards cannot be refunded or exchanged.', 0.8),
      ],
      topScore: 0.9,
      indexSize: 8,
    };
    expect(decideGuard({ ...input, bestEvidence: false }).guard).toBe(false);
    const readFirst = reads();
    expect(decideGuard(input).guard).toBe(false);
    expect(readFirst).toBeGreaterThan(0);
    expect(reads()).toBe(3 * readFirst);
  });
});

describe('guard features', () => {
  it('counts the distinct stemmed query terms a chunk contains', () => {
    const features = guardFeatures(
      chunk('Refunds are issued within 14 days. Gift cards are never refunded.', null),
      indexTerms('How fast are refunds?'),
      1,
    );
    // "fast" and "refund": only "refund" is in the chunk (as "Refunds" and "refunded").
    expect(features.matchedShare).toBe(0.5);
    expect(features.matchedTerms).toBeCloseTo(Math.log(2), 10);
    expect(features.vector).toBe(0);
    expect(features.indexSize).toBe(0);
  });

  it('gives a probability that rises with overlap and similarity and falls with index size', () => {
    const base = { matchedShare: 0.5, matchedTerms: Math.log(2), vector: 0.3, indexSize: 1 };
    const p = guardProbability(base);
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(1);
    expect(guardProbability({ ...base, matchedShare: 1 })).toBeGreaterThan(p);
    expect(guardProbability({ ...base, matchedTerms: Math.log(3) })).toBeGreaterThan(p);
    expect(guardProbability({ ...base, vector: 0.6 })).toBeGreaterThan(p);
    expect(guardProbability({ ...base, indexSize: 4 })).toBeLessThan(p);
    expect(DEFAULT_GUARD_MODEL.cut).toBe(0.5);
  });
});

describe('answer types (vocabulary gaps the corpus cannot bridge)', () => {
  it('counts a price term as contained in a chunk that states an amount of money', () => {
    const pricing = chunk('Students with a valid card pay 19 euros instead of 29 for the pass.');
    // "student" is in the chunk; "discount" is not, but the chunk states a price.
    const features = guardFeatures(pricing, indexTerms('Do students get a discount?'), 8);
    expect(features.matchedShare).toBeCloseTo(2 / 3, 10);
    expect(features.matchedTerms).toBeCloseTo(Math.log(3), 10);
  });

  it('counts time-of-day terms as contained in a chunk that states a clock time', () => {
    const hours = chunk('Service hours are from 5:00 to 1:00 every day.');
    const terms = indexTerms('What time does the service start in the morning?');
    // "service" matches; "time" and "morning" are answered by "5:00"; "start" is missing.
    expect(guardFeatures(hours, terms, 8).matchedShare).toBe(0.75);
  });

  it('bridges nothing without a stated value, and only price and time-of-day terms', () => {
    const noValue = chunk('Discounts are described on the pricing page.');
    expect(guardFeatures(noValue, indexTerms('Is the morning ride cheap?'), 8).matchedShare).toBe(
      0,
    );
    const price = 'A single ride costs 1 euro to unlock.';
    expect([...answeredByType(['tesla', 'model', 'discount'], price)]).toEqual(['discount']);
    expect([...answeredByType(['morn', 'discount'], 'Open from 9 am to 5 pm.')]).toEqual(['morn']);
  });

  it('recognises amounts of money and clock times', () => {
    for (const text of ['€5 a month', 'costs $ 12.50', 'pay 19 euros', '25 cents per minute']) {
      expect(statesMoney(text), text).toBe(true);
    }
    for (const text of ['in 2018', 'version 3.5', '5 percent', 'Euro 2024']) {
      expect(statesMoney(text), text).toBe(false);
    }
    for (const text of ['from 5:00 to 1:00', 'at 17:30', 'opens at 9 am', 'until 11pm']) {
      expect(statesClockTime(text), text).toBe(true);
    }
    for (const text of ['in 2018', 'a 3:1 ratio', 'after 90 minutes', 'at 25:00']) {
      expect(statesClockTime(text), text).toBe(false);
    }
  });
});

describe('guardFeatures against the set of a chunk’s terms', () => {
  const pieces = [
    'Refunds are issued within 14 days of the request.',
    'The store opens at 9:00 in the morning.',
    'Gift cards cost 25 euros and are never refunded.',
    'Shipping is free above 50 euros.',
    'refunds refunds refunds issued issued',
    'Die Garantie gilt für alle Fahrräder.',
    '保証期間は2年です。',
    '',
  ];
  const queries = [
    'How fast are refunds issued?',
    'When does the store open in the morning?',
    'What does shipping cost?',
    'refunds',
    'Gilt die Garantie?',
    '保証期間',
    'the',
  ];

  it('counts the query terms a chunk holds as the set of its index terms does', () => {
    let seed = 5;
    const next = () => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;
    for (let round = 0; round < 500; round++) {
      const text = Array.from(
        { length: Math.floor(next() * 4) },
        () => pieces[Math.floor(next() * pieces.length)]!,
      ).join(' ');
      const terms = indexTerms(queries[round % queries.length]!);
      const chunkTerms = indexTerms(text);
      const missing = [...terms].filter((term) => !chunkTerms.has(term));
      const matched =
        terms.size -
        missing.length +
        (missing.length === 0 ? 0 : answeredByType(missing, text).size);
      const features = guardFeatures(chunk(text, 0.4), terms, 5_000);
      expect(features.matchedShare).toBe(terms.size === 0 ? 0 : matched / terms.size);
      expect(features.matchedTerms).toBe(Math.log1p(matched));
    }
  });
});
