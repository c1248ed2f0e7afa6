import { describe, expect, it } from 'vitest';
import { parseMarkdown } from '../../src/loaders/markdown.js';

const README = `# Chokidar [![Weekly downloads](https://img.shields.io/npm/dw/chokidar.svg)](https://github.com/paulmillr/chokidar)

[![NPM version](https://img.shields.io/npm/v/x.svg)](https://npmjs.org/x) ![size](https://img.shields.io/bundlephobia/minzip/x)

Minimal and efficient file watching. See the [docs](https://example.com/docs) and the
![architecture diagram](arch.png) below.

## Usage ![new](new.png)

Text.
`;

describe('markdown headings and badges', () => {
  it('names a heading without its badges or images, so the title and heading path carry none', () => {
    const { text, title } = parseMarkdown(README);
    expect(title).toBe('Chokidar');
    expect(text).toMatch(/^# Chokidar$/m);
    expect(text).toMatch(/^## Usage$/m);
    expect(text).not.toMatch(/Weekly downloads|NPM version/);
  });

  it('drops badges (links made only of images) in text, keeps other images and links', () => {
    const { text } = parseMarkdown(README);
    expect(text).toContain('See the docs and the');
    expect(text).toContain('architecture diagram below');
    // a lone image that is not a link keeps its alt text, as before
    expect(text).toContain('size');
  });

  it('leaves out a heading that is only a badge, and takes the next heading as the title', () => {
    const { text, title } = parseMarkdown(
      '# [![build](https://ci.example/badge.svg)](https://ci.example)\n\n## Install\n\nRun it.',
    );
    expect(text).not.toMatch(/^#\s*$/m);
    expect(title).toBe('Install');
  });

  it('handles hostile headings: NUL, lone surrogates, a huge badge row', () => {
    const badges = '[![b](https://x.example/b.svg)](https://x.example) '.repeat(20_000);
    const started = performance.now();
    const { text, title } = parseMarkdown(`# Name\u0000 \ud800 ${badges}\n\nBody.`);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(title).toBe('Name\u0000 \ud800');
    expect(text).not.toContain('x.example');
  });
});
