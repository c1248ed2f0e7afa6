import { describe, expect, it } from 'vitest';
import {
  NO_ANSWER_TEXT,
  answerKindOf,
  composeAnswer,
} from '../../../src/adapters/extractive/provider.js';
import { statesKind } from '../../../src/adapters/extractive/answer-kind.js';
import { createChatEngine } from '../../../src/index.js';
import type { PromptSource } from '../../../src/ports/llm-provider.js';
import { bikeShareHandbook } from '../../fixtures/bike-share-handbook.js';
import { handbook } from '../../fixtures/handbook.js';

/** Pages as the prompt labels them, in retrieval order. */
function promptSources(ids: readonly string[]): PromptSource[] {
  return ids.map((id, index) => {
    const page = [...bikeShareHandbook, ...handbook].find((item) => item.id === id)!;
    return { label: `S${index + 1}`, title: page.title, text: page.text };
  });
}

function labelsCited(text: string): string[] {
  return [...text.matchAll(/\[source: (S\d+)\]/g)].map((match) => match[1]!);
}

describe('extractive answers that answer (issue 13)', () => {
  it('answers the README quickstart with the refund sentence alone, not the gift-card filler', () => {
    const answer = composeAnswer({
      messages: [{ role: 'user', content: 'How fast are refunds?' }],
      sources: [
        {
          label: 'S1',
          text: 'Refunds are issued within 14 days of the request. Gift cards are never refunded.',
        },
      ],
    });
    expect(answer.text).toBe('Refunds are issued within 14 days of the request [source: S1].');
    expect(answer.certainty).toBe(1);
  });

  it('cites the age page for "How old do I have to be to ride?", never the pricing page', () => {
    const answer = composeAnswer({
      messages: [{ role: 'user', content: 'How old do I have to be to ride?' }],
      sources: promptSources(['age', 'pricing', 'helmets']),
    });
    expect(answer.text).toContain('Riders must be at least 16 years old to ride an e-bike');
    expect(labelsCited(answer.text)).toEqual(['S1']);
  });

  it('answers a follow-up from the standalone query retrieval used', () => {
    const answer = composeAnswer({
      messages: [
        { role: 'user', content: 'Is standard shipping free?' },
        { role: 'assistant', content: 'Orders ship within 2 business days [source: S1].' },
        { role: 'user', content: 'And how long does it take?' },
      ],
      retrievalQuery: 'standard shipping free',
      sources: promptSources(['shipping']),
    });
    expect(answer.text).not.toBe(NO_ANSWER_TEXT);
    expect(answer.text.startsWith('Orders ship within 2 business days')).toBe(true);
  });

  it('prefers the sentence where the question terms stand together as in the question', () => {
    const answer = composeAnswer({
      messages: [{ role: 'user', content: 'How do I unlock a bike?' }],
      sources: promptSources(['battery', 'damage', 'getting-started']),
    });
    expect(answer.text).toBe('Scan the QR code on the handlebar to unlock a bike [source: S3].');
  });

  it('quotes a Markdown table row that answers as its cells', () => {
    const answer = composeAnswer({
      messages: [
        { role: 'user', content: 'What status does a body larger than maxBodyBytes get?' },
      ],
      sources: [
        {
          label: 'S1',
          text:
            '## Settings\n\n| setting | default | meaning |\n| --- | --- | --- |\n' +
            '| `maxBodyBytes` | 65536 | larger bodies are refused with 413 |\n' +
            '| `basePath` | `""` | prefix of every route |\n',
        },
      ],
    });
    expect(answer.text).toBe(
      '`maxBodyBytes` — 65536 — larger bodies are refused with 413 [source: S1].',
    );
  });

  it('halves the certainty when no sentence states the quantity asked for', () => {
    const sources = [{ label: 'S1', text: 'Refunds are handled by the billing team in Utrecht.' }];
    const asked = composeAnswer({
      messages: [{ role: 'user', content: 'How long do refunds take?' }],
      sources,
    });
    const who = composeAnswer({
      messages: [{ role: 'user', content: 'Who handles refunds?' }],
      sources,
    });
    expect(who.certainty).toBe(1);
    expect(asked.certainty).toBe(0.5);
  });

  it('takes a quantity written in words ("ninety days") as stating a duration', () => {
    const answer = composeAnswer({
      messages: [{ role: 'user', content: 'How long are chat transcripts kept?' }],
      sources: [
        {
          label: 'S1',
          text: 'Chat transcripts are kept until they are deleted after ninety days.',
        },
        { label: 'S2', text: 'Chat transcripts are kept in the archive.' },
      ],
    });
    expect(answer.text).toContain('after ninety days [source: S1]');
    expect(labelsCited(answer.text)[0]).toBe('S1');
    expect(answer.certainty).toBe(1);
  });

  it('reads the kind of answer a question asks for', () => {
    expect(answerKindOf('How fast are refunds?')).toBe('duration');
    expect(answerKindOf('How old do I have to be to ride?')).toBe('age');
    expect(answerKindOf('How much does the monthly pass cost?')).toBe('money');
    expect(answerKindOf('What time does the service start in the morning?')).toBe('clock');
    expect(answerKindOf('How many bikes can I rent?')).toBe('count');
    expect(answerKindOf('How many days does shipping take?')).toBe('duration');
    expect(answerKindOf('Where is the warehouse?')).toBeUndefined();
  });

  it('reads milliseconds and seconds written short as durations', () => {
    expect(statesKind('enquirer: 4.013ms', 'duration')).toBe(true);
    expect(statesKind('Loads in ~4ms', 'duration')).toBe(true);
    expect(statesKind('The timeout is 30 s.', 'duration')).toBe(true);
    expect(statesKind('A lead time of 300 milliseconds.', 'duration')).toBe(true);
    expect(statesKind('Version 2 supports streams.', 'duration')).toBe(false);
    // A bare `s` or `ms` is a unit only after digits: "the ones" and "hundreds" are no durations.
    expect(statesKind('Keep the ones you need, hundreds of them.', 'duration')).toBe(false);
    const answer = composeAnswer({
      messages: [{ role: 'user', content: 'How long does the module take to load?' }],
      sources: [
        {
          label: 'S1',
          text: [
            'The module loads the parser the first time it is used, to keep startup short.',
            '',
            '- Fast - the module loads in ~4ms.',
          ].join('\n'),
        },
      ],
    });
    expect(answer.text).toContain('~4ms');
  });

  it('in a chat, answers "And how long does it take?" from the shipping sentence', async () => {
    const { reply } = await followUp('Is standard shipping free?', 'And how long does it take?');
    expect(reply.text).toContain('Orders ship within 2 business days');
    expect(reply.sources[0]?.documentId).toBe('shipping');
  });
});

/** Asks the handbook `first`, then `second` in the same chat; the second turn's retrieval queries. */
async function followUp(first: string, second: string) {
  const engine = createChatEngine();
  await engine.ingest(handbook);
  const session = await engine.createSession({ userId: 'u1' });
  await engine.chat({ sessionId: session.id, userId: 'u1', message: first });
  const queries: string[] = [];
  engine.on('retrieval', (event) => queries.push(event.query));
  const reply = await engine.chat({ sessionId: session.id, userId: 'u1', message: second });
  return { reply, queries };
}

describe('a follow-up with a topic of its own', () => {
  it('answers "How long does shipping take?" about shipping though the rewrite carried "refund"', async () => {
    const { reply, queries } = await followUp(
      'What is the refund policy?',
      'How long does shipping take?',
    );
    // The rewrite carried the refund topic, and retrieval ranked the refund page first …
    expect(queries[0]).toMatch(/refund/);
    // … but the user asked about shipping.
    expect(reply.text).toMatch(/^Orders ship within 2 business days/);
    expect(reply.text).not.toMatch(/Refunds are issued/);
  });
});
