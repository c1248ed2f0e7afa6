import { describe, expect, it } from 'vitest';
import { createChatEngine, redactPII } from '../../src/index.js';
import { ConfigError } from '../../src/errors/index.js';
import { createMockLLM } from '../../src/testing/mock-llm.js';

describe('redactPII', () => {
  it('replaces e-mails, phone numbers, valid cards, IBANs and SSNs', () => {
    expect(redactPII('Mail jane.doe+shop@example.co.uk now')).toBe('Mail [email] now');
    expect(redactPII('Call +49 30 1234567 or (030) 123-4567.')).toBe('Call [phone] or [phone].');
    expect(redactPII('Card 4111 1111 1111 1111 please')).toBe('Card [card] please');
    expect(redactPII('IBAN DE89 3704 0044 0532 0130 00 ok')).toBe('IBAN [iban] ok');
    expect(redactPII('SSN 123-45-6789.')).toBe('SSN [ssn].');
  });

  it('keeps amounts, dates, order numbers and checksum failures', () => {
    const kept = [
      'Refunds take 14 days and cost 29.90 euros.',
      'Order 2026-11-24 number 123456789.',
      'Card 4111 1111 1111 1112 is not a valid number.',
      'IBAN DE00 3704 0044 0532 0130 00 fails its check.',
      'Version 1.2.3 of IL-6 in 1,000 patients.',
    ];
    for (const text of kept) expect(redactPII(text)).toBe(text);
  });
});

describe('redactPII on hostile input', () => {
  it('keeps long runs and NULs as they are, and still finds what follows them', () => {
    const run = 'a'.repeat(100_000);
    expect(redactPII(run)).toBe(run);
    expect(redactPII(`${run} jane@example.com`)).toBe(`${run} [email]`);
    expect(redactPII(`${'1'.repeat(100_000)} 4111 1111 1111 1111`)).toMatch(/ \[card\]$/);
    expect(redactPII('a\u0000b@example.com\u0000')).toBe('a\u0000[email]\u0000');
  });
});

describe('config.redact', () => {
  it('redacts before anything is stored, searched or sent to the model', async () => {
    const llm = createMockLLM({ responses: 'Noted [source: S1].' });
    const engine = createChatEngine({ llm, redact: redactPII, retrieval: { minSimilarity: 0 } });
    await engine.ingest([{ id: 'refunds', text: 'Refunds are paid to the card within 14 days.' }]);
    const queries: string[] = [];
    engine.on('retrieval', (event) => queries.push(event.query));
    const session = await engine.createSession({ userId: 'u' });
    const message = 'My card 4111 1111 1111 1111 was charged, mail me at a.b@example.com';
    await engine.chat({ sessionId: session.id, userId: 'u', message });
    await engine.flush();
    const stored = await engine.history({ sessionId: session.id, userId: 'u' });
    expect(stored.messages[0]?.content).toBe('My card [card] was charged, mail me at [email]');
    const sent = JSON.stringify(llm.calls.map((call) => call.request));
    expect(sent).not.toContain('4111');
    expect(sent).not.toContain('example.com');
    expect(queries.join(' ')).not.toContain('4111');
    // A stateless turn's history is redacted too.
    await engine.chat({
      userId: 'u',
      mode: 'query',
      message: 'And the refund?',
      history: [{ role: 'user', content: 'Reach me on +44 20 7946 0958' }],
    });
    expect(JSON.stringify(llm.calls.at(-1)!.request)).not.toContain('7946');
  });

  it('rejects a redactor that is not a function, or that returns no string', async () => {
    expect(() => createChatEngine({ redact: 'yes' as never })).toThrow(ConfigError);
    const engine = createChatEngine({ redact: (() => 42) as never });
    await expect(engine.chat({ userId: 'u', message: 'Hi there', mode: 'query' })).rejects.toThrow(
      ConfigError,
    );
  });
});
