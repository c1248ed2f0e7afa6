import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseMarkdown, splitFrontMatter } from 'cortexis/loaders';

const fixture = readFileSync(join(import.meta.dirname, '../fixtures/loaders/warranty.md'), 'utf8');

describe('parseMarkdown', () => {
  it('turns YAML front matter into the title and metadata, not text', () => {
    const { text, title, metadata } = parseMarkdown(fixture);
    expect(title).toBe('Warranty policy');
    expect(metadata).toEqual({ author: 'ops', tags: 'warranty, returns', updated: '2024-05-01' });
    expect(text).not.toContain('---');
    expect(text).not.toContain('author');
    expect(text.startsWith('# Warranty\n')).toBe(true);
  });

  it('removes inline markup: emphasis, links keep their text, code spans their code', () => {
    const { text } = parseMarkdown(fixture);
    expect(text).toContain('Every device has a two-year warranty. See the claims page or');
    expect(text).toContain('email support@example.com.');
    expect(text).toContain('- Water damage is not covered.');
    expect(text).not.toMatch(/\*\*|\]\(|https:\/\/example\.com|`support/);
  });

  it('keeps headings as structure and code fences as text', () => {
    const { text } = parseMarkdown(fixture);
    expect(text).toContain('\n## Exclusions\n');
    expect(text).toContain('```sh\ncortexis ask docs "Is water damage covered?"\n```');
  });

  it('takes the first heading as title without front matter; images keep their alt text', () => {
    const parsed = parseMarkdown(
      'Intro\n\n## Setup\n\n![A wiring diagram](w.png) and __bold__ `x*y`\n',
    );
    expect(parsed.title).toBe('Setup');
    expect(parsed.text).toBe('Intro\n\n## Setup\n\nA wiring diagram and bold x*y');
    expect(parsed.metadata).toEqual({});
  });

  it('takes no title from a comment line inside a fenced code block', () => {
    const parsed = parseMarkdown(
      '## Install\n\n```bash\n# The parsed options will be:\nnode cli.js\n```\n\n~~~\n# nor this\n~~~\n',
    );
    expect(parsed.title).toBe('Install');
    expect(parseMarkdown('```sh\n# comment\n```\n\n### Usage\n').title).toBe('Usage');
  });

  it('leaves reserved keys out of metadata and strips raw HTML tags', () => {
    const parsed = parseMarkdown(
      '---\nid: 7\nuri: x\nsection: y\n---\n<div class="note">Keep <b>this</b></div>\n',
    );
    expect(parsed.metadata).toEqual({ id: 7 });
    expect(parsed.text).toBe('Keep this');
  });

  it('rejects front matter that is not a mapping or not YAML', () => {
    expect(() => splitFrontMatter('---\n- a\n- b\n---\ntext')).toThrow(/mapping/);
    expect(() => splitFrontMatter('---\ntitle: [unclosed\n---\ntext')).toThrow(/invalid YAML/);
    // A thematic break later in the file is not front matter.
    expect(splitFrontMatter('text\n---\nmore').data).toEqual({});
  });
});
