import { describe, expect, it, vi } from 'vitest';
import { createChatEngine } from '../../../src/index.js';

/** Sources named for the citation line. */
const named: string[] = [];

vi.mock('../../../src/pipeline/generate.js', async (importOriginal) => {
  const module = await importOriginal<typeof import('../../../src/pipeline/generate.js')>();
  return {
    ...module,
    sourceName: (source: Parameters<typeof module.sourceName>[0]) => {
      const name = module.sourceName(source);
      named.push(name);
      return name;
    },
  };
});

const docs = [
  {
    id: 'refunds.md',
    title: 'Refund policy',
    text: 'Refunds are paid within 14 days of a return.',
  },
  { id: 'shipping.md', title: 'Shipping', text: 'Parcels ship within two working days.' },
];

describe('the citation line’s source names', () => {
  it('are made only when the answer gets the line', async () => {
    const engine = createChatEngine();
    await engine.ingest(docs);
    named.length = 0;
    const plain = await engine.chat({ message: 'How fast are refunds paid?', mode: 'query' });
    expect(plain.sources.length).toBeGreaterThan(0);
    expect(named).toEqual([]);
    const session = await engine.createSession({
      userId: 'u1',
      settings: { includeCitations: true },
    });
    const lined = await engine.chat({
      sessionId: session.id,
      message: 'How fast are refunds paid?',
    });
    expect(named.length).toBeGreaterThan(0);
    expect(lined.text).toContain('Sources: ');
  });
});
