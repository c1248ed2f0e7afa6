import { describe, expect, it } from 'vitest';
import { parseJsonLines, parseJsonRecords } from 'cortexis/loaders';

describe('JSON and JSONL records', () => {
  it('reads the chosen text, id and title fields; other scalar fields become metadata', () => {
    const records = parseJsonRecords(
      JSON.stringify([
        { sku: 'A1', body: { en: 'Red kettle, 1.7 l.' }, name: 'Kettle', price: 20, tags: ['x'] },
      ]),
      { textField: 'body.en', idField: 'sku', titleField: 'name' },
    );
    expect(records).toEqual([
      {
        ok: true,
        id: 'A1',
        text: 'Red kettle, 1.7 l.',
        title: 'Kettle',
        metadata: { price: 20 },
        position: 1,
      },
    ]);
  });

  it('reports each bad JSONL line by number and keeps the good ones', () => {
    const results = parseJsonLines('{"text":"one"}\n\nnot json\n{"text":"  "}\n[1]\n{"other":1}\n');
    expect(results.map((result) => [result.ok, result.position])).toEqual([
      [true, 1],
      [false, 3],
      [false, 4],
      [false, 5],
      [false, 6],
    ]);
    expect(results.filter((result) => !result.ok).map((result) => result.reason)).toEqual([
      'invalid JSON',
      "field 'text' is empty",
      'not a JSON object',
      "no text in field 'text'",
    ]);
  });

  it('rejects a JSON file that does not parse, naming the problem', () => {
    expect(() => parseJsonRecords('{"text": ')).toThrow(/invalid JSON/);
  });
});
