import { beforeAll, describe, expect, it } from 'vitest';
import { createGptTokenizer } from '../../src/adapters/tokenizer/gpt-tokenizer.js';
import { chunkText } from '../../src/ingest/chunk.js';
import { decodeEntities, htmlToText } from '../../src/ingest/html.js';
import type { Tokenizer } from '../../src/ports/tokenizer.js';

describe('htmlToText', () => {
  it('turns headings into markdown headings and blocks into paragraphs', () => {
    const html =
      '<html><body><h1>Hand<b>book</b></h1><p>First   paragraph\n spans lines.</p>' +
      '<div>A div.</div><h3 class="x">Deep <a href="#">link</a></h3><p>Last.</p></body></html>';
    expect(htmlToText(html)).toBe(
      '# Handbook\n\nFirst paragraph spans lines.\n\nA div.\n\n### Deep link\n\nLast.',
    );
  });

  it('removes scripts, styles, comments, the head and other non-text elements', () => {
    const html =
      '<!DOCTYPE html><html><head><title>T</title><style>p { color: red }</style></head>' +
      '<body><!-- hidden --><script type="text/javascript">if (a < b) alert("x")</script>' +
      '<p>Visible</p><noscript>Enable JS</noscript><svg><text>chart</text></svg></body></html>';
    expect(htmlToText(html)).toBe('Visible');
  });

  it('decodes common, decimal and hexadecimal entities without creating markup', () => {
    expect(
      htmlToText('<p>Fish &amp; chips &lt;b&gt; &quot;x&quot; &#39;y&#39; &#x2014; &hellip;</p>'),
    ).toBe('Fish & chips <b> "x" \'y\' — …');
    expect(htmlToText('<p>a&nbsp;b &unknown; &#0;</p>')).toBe('a b &unknown; \uFFFD');
    expect(decodeEntities('&eacute;t&eacute; &copy; &#128512;')).toBe('été © 😀');
  });

  it('renders lists, line breaks and table rows', () => {
    const html =
      '<p>Line one<br>Line two</p><ul><li>One</li><li>Two</li></ul>' +
      '<table><tr><th>Plan</th><th>Price</th></tr><tr><td>Basic</td><td>$5</td></tr></table>';
    expect(htmlToText(html)).toBe('Line one\nLine two\n\n- One\n- Two\n\nPlan | Price\nBasic | $5');
  });

  it('keeps preformatted text verbatim in a code fence', () => {
    const html =
      '<p>Run:</p><pre><code>if (x &lt; 2) {\n    return   x;\n}</code></pre><p>Done.</p>';
    expect(htmlToText(html)).toBe('Run:\n\n```\nif (x < 2) {\n    return   x;\n}\n```\n\nDone.');
  });

  it('copes with attributes containing ">" and with text that is not markup', () => {
    expect(htmlToText('<a title="a > b" href="x">link</a> and 3 < 4')).toBe('link and 3 < 4');
    expect(htmlToText('plain text, no tags')).toBe('plain text, no tags');
    expect(htmlToText('')).toBe('');
  });

  it('uses image alt text', () => {
    expect(htmlToText('<p>Logo: <img src="a.png" alt="Acme &amp; Co"></p>')).toBe(
      'Logo: Acme & Co',
    );
  });
});

describe('htmlToText with chunkText', () => {
  let tokenizer: Tokenizer;
  beforeAll(async () => {
    tokenizer = await createGptTokenizer();
  });

  it('gives chunks with heading paths from the HTML headings', () => {
    const html =
      '<h1>Handbook</h1><h2>Refunds</h2><p>Refunds are issued within 14 days.</p>' +
      '<h2>Shipping</h2><p>Orders ship in 2 days.</p>';
    const chunks = chunkText(htmlToText(html), { tokenizer });
    expect(chunks.map((chunk) => chunk.headingPath)).toEqual([
      ['Handbook', 'Refunds'],
      ['Handbook', 'Shipping'],
    ]);
  });
});
