import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocx } from 'cortexis/loaders';

describe('parseDocx', () => {
  it('turns a real DOCX into text with its headings as structure and no markup', async () => {
    const bytes = readFileSync(join(import.meta.dirname, '../fixtures/loaders/warranty.docx'));
    const { text, title } = await parseDocx(bytes);
    expect(text).toBe(
      '# Warranty handbook\n\n# Warranty terms\n\n' +
        'Every device carries a two-year warranty from the date of delivery.\n\n' +
        '## Claims\n\nClaims need the serial number and the original receipt.',
    );
    expect(title).toBe('Warranty handbook');
  });

  it('rejects bytes that are not a DOCX', async () => {
    await expect(parseDocx(new TextEncoder().encode('plain text'))).rejects.toThrow();
  });
});
