import { describe, expect, it } from 'vitest';
import { createChatEngine } from '../../src/index.js';
import {
  focusRefuses,
  focusTerms,
  MISSING_TERM_TOP_SCORE,
  missingFocus,
  weakFocus,
} from '../../src/pipeline/guard-focus.js';
import { indexTerms } from '../../src/pipeline/guard.js';
import { createMockLLM } from '../../src/testing/index.js';

const TLS =
  '# Connector\n\nOptions of the TLS connection: `ca`, `cert` and `key` of a client certificate.';

describe('focusTerms', () => {
  it('leaves out the words that name the kind of answer and the words without a topic', () => {
    expect(focusTerms('Which function parses all Set-Cookie headers?')).not.toContain('function');
    expect(focusTerms('What is the default timeout of a Client?')).not.toContain('default');
    expect(focusTerms('How do I check whether there is another page?')).toEqual(['pag']);
    // What a thing answers or replies with is asked for, not what the question is about.
    expect(
      focusTerms('What does the HTTP handler answer when authenticate returns null?'),
    ).not.toContain('answer');
    expect(focusTerms('What does the server reply to a bad request?')).not.toContain('reply');
    // "Turns it off" asks which switch does it; the topic is what is switched.
    expect(focusTerms('Which flag turns off colour output?')).toEqual(['colour', 'output']);
    expect(focusTerms('How do I turn on verbose logging?')).toEqual(['verbos', 'log']);
  });

  it('leaves out a verb that asks whether, and keeps the same word as a topic', () => {
    expect(focusTerms('How do I check whether a version satisfies a range?')).toEqual([
      'version',
      'satisfy',
      'rang',
    ]);
    expect(focusTerms('Can I test if a key exists?')).toEqual(['key', 'exist']);
    expect(focusTerms('How do I find out whether the cache is stale?')).toEqual(['cach', 'stal']);
    expect(focusTerms('Which endpoint does the health check call?')).toContain('check');
    expect(focusTerms('How do I run the tests?')).toContain('test');
  });
});

describe('missingFocus', () => {
  it('refuses a question whose subject no chunk mentions when retrieval is weak', () => {
    const missing = missingFocus(
      'How do I set the passphrase and the pin of a client certificate?',
      [TLS],
      0.45,
      indexTerms,
    );
    expect(missing.terms).toEqual(expect.arrayContaining(['passphras', 'pin']));
    expect(missing.refuse).toBe(true);
  });

  it('answers when one word is missing, when retrieval is strong, or when it is a claim', () => {
    const one = 'How do I set the passphrase of a client certificate?';
    expect(missingFocus(one, [TLS], 0.45, indexTerms).refuse).toBe(false);
    const two = 'How do I set the passphrase and the pin of a client certificate?';
    expect(missingFocus(two, [TLS], 0.9, indexTerms).refuse).toBe(false);
    const claim = 'Client certificates need a passphrase and a pin.';
    expect(missingFocus(claim, [TLS], 0.3, indexTerms).refuse).toBe(false);
  });

  it('refuses a literal of the question that no chunk contains, whatever the score', () => {
    const chunk = 'JS-YAML is an implementation of YAML, and supports the 1.2 spec.';
    const missing = missingFocus('Does js-yaml support YAML 1.3?', [chunk], 0.96, indexTerms);
    expect(missing.literals).toEqual(['1.3']);
    expect(missing.refuse).toBe(true);
    expect(missingFocus('Does js-yaml support YAML 1.2?', [chunk], 0.96, indexTerms).refuse).toBe(
      false,
    );
  });

  it('counts a time-of-day word as present where a clock time is stated', () => {
    const chunk = 'Service hours are from 5:00 to 1:00 every day.';
    const missing = missingFocus(
      'What time does service start in the morning?',
      [chunk],
      0.3,
      indexTerms,
    );
    expect(missing.refuse).toBe(false);
  });

  it('counts a word of five letters or more as present inside a longer word of a chunk', () => {
    const chunk = 'itemPrefix | unorderedList | String prefix for each list item';
    const question = 'What is the default marker of unordered list items?';
    const missing = missingFocus(question, [chunk], 0.3, indexTerms);
    expect(missing.terms).toEqual(['marker']);
    expect(missing.refuse).toBe(false);
    // Without the compound, "unordered" is missing too, and two missing words refuse.
    const plain = missingFocus(question, ['String prefix for each list item'], 0.3, indexTerms);
    expect(plain.terms).toEqual(['marker', 'unorder']);
    expect(plain.refuse).toBe(true);
  });

  it('looks inside longer words for the first 32 missing question words only', () => {
    const chunk = 'itemPrefix | unorderedList | String prefix for each list item';
    const filler = Array.from({ length: 32 }, (_, index) => `zzword${index.toString(36)}zz`);
    const late = missingFocus(`${filler.join(' ')} unordered?`, [chunk], 0.3, indexTerms);
    expect(late.terms).toContain('unorder');
    const early = missingFocus(`unordered ${filler.join(' ')}?`, [chunk], 0.3, indexTerms);
    expect(early.terms).not.toContain('unorder');
  });

  it('does not look for a word shorter than five letters inside a longer word', () => {
    const chunk = 'The worker thread has already parsed the metadata.';
    const missing = missingFocus(
      'How can a formatter read the metadata?',
      [chunk],
      0.3,
      indexTerms,
    );
    expect(missing.terms).toContain('read');
  });
});

describe('focusRefuses', () => {
  const chunks = [
    TLS,
    'JS-YAML is an implementation of YAML, and supports the 1.2 spec.',
    'Service hours are from 5:00 to 1:00 every day.',
    'Students with a valid card pay 19 euros instead of 29.',
    'Call `parse()` on the header; the `--watch` flag reloads a.b on change.',
    'itemPrefix | unorderedList | String prefix for each list item',
  ];
  const questions = [
    'How do I set the passphrase and the pin of a client certificate?',
    'How do I set the passphrase of a client certificate?',
    'Client certificates need a passphrase and a pin.',
    'Does js-yaml support YAML 1.3?',
    'Does js-yaml support YAML 1.2?',
    'What time does service start in the morning?',
    'Do students get a discount on the evening ticket?',
    'What does parse() return with --watch and a.c set?',
    'Which browser drives the web chat end-to-end test?',
    'What is the default marker of unordered list items?',
    'What?',
    '',
  ];

  it('says what missingFocus(…).refuse says, for every question, chunk set and score', () => {
    let refused = 0;
    for (const question of questions) {
      for (let from = 0; from <= chunks.length; from++) {
        const some = chunks.slice(from, from + 2);
        for (const topScore of [
          0,
          0.3,
          MISSING_TERM_TOP_SCORE - 1e-9,
          MISSING_TERM_TOP_SCORE,
          0.9,
        ]) {
          const expected = missingFocus(question, some, topScore, indexTerms).refuse;
          expect(focusRefuses(question, some, topScore, indexTerms), question).toBe(expected);
          if (expected) refused++;
        }
      }
    }
    expect(refused).toBeGreaterThan(10);
  });

  it('analyses no chunk for a claim, nor for a question a strong chunk answers without a missing literal', () => {
    let analysed = 0;
    const counted = (text: string) => {
      analysed++;
      return indexTerms(text);
    };
    expect(
      focusRefuses('Client certificates need a passphrase and a pin.', [TLS], 0.3, counted),
    ).toBe(false);
    expect(
      focusRefuses(
        'How do I set the passphrase and the pin of a client certificate?',
        [TLS],
        0.9,
        counted,
      ),
    ).toBe(false);
    expect(analysed).toBe(0);
    expect(
      focusRefuses(
        'How do I set the passphrase and the pin of a client certificate?',
        [TLS],
        0.45,
        counted,
      ),
    ).toBe(true);
    expect(analysed).toBe(1);
  });
});

describe('missingFocus: words a paraphrase may lack', () => {
  it('does not refuse on a hyphenated compound or a quantity word', () => {
    const chunk = 'The web chat is tested from end to end in Chromium, with a strong score.';
    const compound = 'Which browser drives the web chat end-to-end test?';
    expect(missingFocus(compound, [chunk], 0.72, indexTerms).literals).toEqual([]);
    expect(focusTerms('How far does a full battery last?')).not.toContain('far');
  });
});

describe('weakFocus', () => {
  it('marks a question missing one focus word only while the best chunk is weak', () => {
    const question = 'How do I set the passphrase of a client certificate?';
    expect(weakFocus(question, [TLS], 0.5, indexTerms)).toEqual(['passphrase']);
    expect(weakFocus(question, [TLS], 0.9, indexTerms)).toEqual([]);
    expect(
      weakFocus('How do I set the key of a client certificate?', [TLS], 0.5, indexTerms),
    ).toEqual([]);
    // an adverb is no topic: "really" missing from the chunks is not a missing focus
    expect(
      weakFocus('Which key does a client certificate really use?', [TLS], 0.5, indexTerms),
    ).toEqual([]);
  });
});

describe('the guard refuses a question whose focus no chunk mentions', () => {
  const docs = [
    {
      id: 'tls',
      title: 'Connector',
      text: '# Connector\n\nThe connector opens the TLS connection of a client. Pass `ca`, `cert` and `key` to trust a client certificate. The connection timeout defaults to 10 seconds.',
    },
    {
      id: 'pool',
      title: 'Pool',
      text: '# Pool\n\nA pool keeps several client connections open to one origin. Set `connections` to limit how many.',
    },
    {
      id: 'retry',
      title: 'Retry',
      text: '# Retry\n\nFailed requests are retried twice by default. Set `maxRetries` to change it.',
    },
  ];
  const question = 'How do I set the passphrase and the pin of a client certificate?';

  it('says so in `refused`, with the guard answer and no sources', async () => {
    const engine = createChatEngine();
    await engine.ingest(docs);
    const reply = await engine.chat({ message: question, mode: 'query' });
    expect(reply.refused).toEqual({ by: 'guard', reason: 'missing-focus' });
    expect(reply.guard).toBe(true);
    expect(reply.sources).toEqual([]);
    const answered = await engine.chat({
      message: 'How do I trust a client certificate?',
      mode: 'query',
    });
    expect(answered.refused).toBeNull();
  });

  it('refuses after generation when one focus word is missing and the model is unsure: the answer says so, in the response and the stream', async () => {
    const engine = createChatEngine();
    await engine.ingest(docs);
    const asked = 'How do I set the passphrase of a client certificate?';
    const reply = await engine.chat({ message: asked, mode: 'query' });
    expect(reply.refused).toEqual({ by: 'guard', reason: 'missing-focus' });
    expect(reply.guard).toBe(false);
    expect(reply.sources.length).toBeGreaterThan(0);
    expect(reply.text).toMatch(/The sources do not mention “passphrase”/);
    expect(reply.confidence.level).toBe('low');
    const stream = engine.stream({ message: asked, mode: 'query' });
    let streamed = '';
    for await (const part of stream) if (part.type === 'text-delta') streamed += part.text;
    const response = await stream.response;
    expect(response.refused).toEqual({ by: 'guard', reason: 'missing-focus' });
    expect(streamed).toBe(response.text);
    expect(response.text).toBe(reply.text);
  });

  it('refuses after generation when one focus word is missing and the best source is weak, however sure the model is', async () => {
    const asked = 'How do I set the passphrase of a client certificate?';
    const quote = 'Pass `ca`, `cert` and `key` to trust a client certificate [source: S1].';
    const engine = createChatEngine({
      llm: createMockLLM({ responses: { text: quote, certainty: 0.9 } }),
    });
    await engine.ingest(docs);
    const topScores: number[] = [];
    engine.on('retrieval', (event) => topScores.push(event.topScore));
    const reply = await engine.chat({ message: asked, mode: 'query' });
    expect(topScores[0]).toBeLessThan(MISSING_TERM_TOP_SCORE);
    expect(reply.refused).toEqual({ by: 'guard', reason: 'missing-focus' });
    expect(reply.text).toBe(
      `${quote}\n\nThe sources do not mention “passphrase”: they do not answer this question.`,
    );
    expect(reply.confidence.level).toBe('low');
  });

  it('leaves a fixed minSimilarity as the user set it', async () => {
    const engine = createChatEngine({ retrieval: { minSimilarity: 0.05 } });
    await engine.ingest(docs);
    const reply = await engine.chat({ message: question, mode: 'query' });
    expect(reply.refused?.reason).not.toBe('missing-focus');
  });
});
