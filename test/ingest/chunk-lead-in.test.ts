import { beforeAll, describe, expect, it } from 'vitest';
import { createGptTokenizer } from '../../src/adapters/tokenizer/gpt-tokenizer.js';
import { chunkText } from '../../src/ingest/chunk.js';
import type { Tokenizer } from '../../src/ports/tokenizer.js';

let tokenizer: Tokenizer;
beforeAll(async () => {
  tokenizer = await createGptTokenizer();
});

const INTRO =
  'Options can be declared with flags and a description, and the parsed values are read back ' +
  'from the program after parsing the command line arguments of the process.';

describe('chunkText: a block stays with the sentence that introduces it', () => {
  const blocks = {
    code: "```js\nprogram.option('-c, --cheese <type>', 'cheese', 'blue');\n```",
    list: '- `--cheese` picks the cheese\n- `--no-sauce` drops the sauce',
    table: 'Flag | Default | Meaning\n--cheese | blue | the cheese\n--sauce | true | the sauce',
    'table with edge pipes': '| Flag | Default |\n| --- | --- |\n| --cheese | blue |',
  };
  for (const [kind, block] of Object.entries(blocks)) {
    it(`keeps a ${kind} in the chunk of its lead-in sentence, under the heading path`, () => {
      const lead = 'You can specify a default value for an option:';
      const text = `# Options\n\n## Default values\n\n${INTRO}\n\n${lead}\n\n${block}`;
      const chunks = chunkText(text, { tokenizer, chunkSize: 60, chunkOverlap: 0 });
      expect(chunks.length).toBeGreaterThan(1);
      const holding = chunks.find((chunk) => chunk.text.includes(lead))!;
      expect(holding.text).toContain(block);
      expect(holding.headingPath).toEqual(['Options', 'Default values']);
      for (const chunk of chunks) expect(chunk.tokenCount).toBeLessThanOrEqual(60);
    });
  }

  it('still cuts a lead-in and a block that do not fit one chunk together', () => {
    const code = `\`\`\`\n${'x = 1;\n'.repeat(40)}\`\`\``;
    const text = `Set it like this:\n\n${code}`;
    const chunks = chunkText(text, { tokenizer, chunkSize: 60, chunkOverlap: 0 });
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.tokenCount).toBeLessThanOrEqual(60);
  });
});
