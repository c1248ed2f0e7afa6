import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseHtml } from 'cortexis/loaders';

const fixture = readFileSync(join(import.meta.dirname, '../fixtures/loaders/shop.html'), 'utf8');

describe('parseHtml', () => {
  it('keeps the main content only: no navigation, header, footer, aside, script or style', () => {
    const { text } = parseHtml(fixture);
    expect(text).toBe(
      '# Returns policy\n\n' +
        'Items can be returned within 30 days of delivery & refunded in full.\n\n' +
        '- Keep the receipt.\n- Use the original box.',
    );
    for (const chrome of [
      'Home',
      'Shop',
      'About us',
      'Careers',
      '©',
      'gift cards',
      'tracking',
      'color',
    ]) {
      expect(text).not.toContain(chrome);
    }
  });

  it('takes the title from the first h1 and metadata from lang and meta tags', () => {
    const { title, metadata } = parseHtml(fixture);
    expect(title).toBe('Returns policy');
    expect(metadata).toEqual({ lang: 'en', description: 'How returns work' });
  });

  it('without <main>, drops page chrome from the body but keeps an article header', () => {
    const html =
      '<title>Doc | Site</title><body><header>Site menu</header><article><header><h2>Post</h2></header>' +
      '<p>Body text.</p><pre>  let x = 1;\n</pre></article><article><p>Second.</p></article>' +
      '<div role="navigation">Skip</div><footer>Legal</footer></body>';
    const { text, title } = parseHtml(html);
    expect(text).toBe('## Post\n\nBody text.\n\n```\n  let x = 1;\n```\n\nSecond.');
    expect(title).toBe('Doc | Site');
  });

  it('renders tables as rows of cells and decodes entities', () => {
    const { text } = parseHtml(
      '<main><table><tr><th>Plan</th><th>Price</th></tr><tr><td>Pro</td><td>&euro;10</td></tr></table></main>',
    );
    expect(text).toBe('Plan | Price\nPro | €10');
  });
});
