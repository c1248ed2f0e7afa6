import { describe, expect, it, vi } from 'vitest';
import { sourceSentences } from '../../../src/adapters/extractive/candidates.js';
import { composeAnswer } from '../../../src/adapters/extractive/provider.js';
import { helpOptions } from '../../../src/adapters/extractive/units.js';
import type { PromptSource } from '../../../src/ports/llm-provider.js';

/** Every text the sentence splitter was asked to split. */
const split: string[] = [];

vi.mock('../../../src/text/sentences.js', async (importOriginal) => {
  const module = await importOriginal<typeof import('../../../src/text/sentences.js')>();
  return {
    ...module,
    splitSentences: (text: string) => {
      split.push(text);
      return module.splitSentences(text);
    },
  };
});

const refunds =
  'Refunds are issued within 14 days of the request. Gift cards are never refunded by the shop.';
const shipping = 'Standard shipping takes three to five working days. Express shipping takes one.';

describe('source analysis shared between turns', () => {
  it('splits and stems a source at most twice, however many requests quote it', () => {
    const sources: PromptSource[] = [
      { label: 'S1', title: 'Refunds (analysis once)', text: `${refunds} Once.` },
      { label: 'S2', title: 'Shipping (analysis once)', text: `${shipping} Once.` },
    ];
    const request = { messages: [{ role: 'user' as const, content: 'How fast are refunds?' }] };
    const splits = () => split.filter((text) => text.endsWith('Once.')).length;
    split.length = 0;
    // The first sight is analysed and forgotten, the second analysed and kept.
    const first = composeAnswer({ ...request, sources });
    const second = composeAnswer({ ...request, sources });
    expect(splits()).toBe(4);
    const third = composeAnswer({ ...request, sources });
    const reversed = composeAnswer({ ...request, sources: [...sources].reverse() });
    expect(splits()).toBe(4);
    expect(second).toEqual(first);
    expect(third).toEqual(first);
    expect(first.text).toContain('Refunds are issued within 14 days');
    expect(reversed.text).toContain('Refunds are issued within 14 days');
  });

  it('gives each request its own labels, ranks and order for a source it has analysed', () => {
    const a: PromptSource = { label: 'S1', title: 'Refunds', text: refunds };
    const b: PromptSource = { label: 'S2', title: 'Shipping', text: shipping };
    const once = sourceSentences([a, b]);
    const swapped = sourceSentences([
      { ...b, label: 'S1' },
      { ...a, label: 'S2' },
    ]);
    expect(once.map((c) => [c.label, c.rank, c.order, c.document])).toEqual([
      ['S1', 0, 0, 'Refunds'],
      ['S1', 0, 1, 'Refunds'],
      ['S2', 1, 2, 'Shipping'],
      ['S2', 1, 3, 'Shipping'],
    ]);
    expect(swapped.map((c) => [c.label, c.rank, c.order, c.text.slice(0, 14)])).toEqual([
      ['S1', 0, 0, 'Standard shipp'],
      ['S1', 0, 1, 'Express shippi'],
      ['S2', 1, 2, 'Refunds are is'],
      ['S2', 1, 3, 'Gift cards are'],
    ]);
  });

  it('keys the analysis by title as well as text: the heading comes from the title', () => {
    const [underRefunds] = sourceSentences([{ label: 'S1', title: 'Refunds', text: refunds }]);
    const [underPolicy] = sourceSentences([{ label: 'S1', title: 'Store policy', text: refunds }]);
    const [untitled] = sourceSentences([{ label: 'S1', text: refunds }]);
    expect([...underRefunds!.heading]).toEqual(['refund']);
    expect([...underPolicy!.heading].sort()).toEqual(['policy', 'stor']);
    expect([...untitled!.heading]).toEqual([]);
    expect(untitled!.document).toBe('S1');
  });
});

describe("a command's help text", () => {
  it('is read as its options, each with its description', () => {
    expect(
      helpOptions([
        '$ tool -h',
        'Options:',
        '  -h, --help     Show this help message and exit.',
        '  -l --loose',
        '        Interpret versions loosely',
        '        (does not imply --coerce)',
        '  -n <0|1|false>',
        '        Base number (default: 0).',
        '  --bare',
        'Trailing prose.',
      ]),
    ).toEqual([
      '-h, --help: Show this help message and exit.',
      '-l --loose: Interpret versions loosely (does not imply --coerce)',
      '-n <0|1|false>: Base number (default: 0).',
    ]);
  });

  it('is not read from a block with one option line or none', () => {
    expect(helpOptions(['$ npm install --save semver'])).toEqual([]);
    expect(helpOptions(['const a = 1;', '--b;'])).toEqual([]);
  });
});
