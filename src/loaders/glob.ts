import { trimEnds } from '../util/trim-trailing.js';

/** Whether a path argument is a glob pattern rather than a file or folder name. */
export function isGlob(pattern: string): boolean {
  return /[*?[\]{}]/.test(pattern);
}

/**
 * A glob pattern as a regular expression over `/`-separated paths: `**` any number of folders,
 * `*` and `?` within one name, `[abc]` a character class, `{a,b}` alternatives.
 */
export function globToRegExp(pattern: string): RegExp {
  let source = '';
  let braces = 0;
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index]!;
    if (char === '*') {
      if (pattern[index + 1] === '*') {
        const slash = pattern[index + 2] === '/';
        source += slash ? '(?:.*/)?' : '.*';
        index += slash ? 2 : 1;
      } else {
        source += '[^/]*';
      }
    } else if (char === '?') {
      source += '[^/]';
    } else if (char === '[') {
      const close = pattern.indexOf(']', index + 1);
      if (close === -1) {
        source += '\\[';
      } else {
        const body = pattern
          .slice(index + 1, close)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        source += `[${body}]`;
        index = close;
      }
    } else if (char === '{') {
      braces++;
      source += '(?:';
    } else if (char === '}' && braces > 0) {
      braces--;
      source += ')';
    } else if (char === ',' && braces > 0) {
      source += '|';
    } else {
      source += char.replace(/[.+^$()|\\{}]/g, '\\$&');
    }
  }
  return new RegExp(`^${source}$`);
}

/** The folder part of a glob before its first wildcard (`docs/**\/*.md` → `docs`). */
export function globBase(pattern: string): string {
  const parts = pattern.split('/');
  const first = parts.findIndex((part) => isGlob(part));
  const base = parts.slice(0, first === -1 ? parts.length : first).join('/');
  return base === '' && pattern.startsWith('/') ? '/' : base || '.';
}

/**
 * Matches ignore patterns gitignore-style: a pattern without `/` matches any file or folder
 * name; one with `/` matches the path relative to the walked folder.
 */
export function ignoreMatcher(patterns: readonly string[]): (relativePath: string) => boolean {
  const byName = patterns.filter((p) => !p.includes('/')).map(globToRegExp);
  const byPath = patterns
    .filter((p) => p.includes('/'))
    .map((p) => globToRegExp(p.replace(/^\//, '').replace(/\/$/, '')));
  return (relativePath) => {
    const name = relativePath.slice(relativePath.lastIndexOf('/') + 1);
    return byName.some((r) => r.test(name)) || byPath.some((r) => r.test(relativePath));
  };
}

/** Longest pattern line an ignore file may hold (a longer one is refused, not cut). */
export const MAX_IGNORE_PATTERN = 256;
/** Most wildcard runs (`*`, `**`) in one pattern of an ignore file: each multiplies matching work. */
export const MAX_IGNORE_WILDCARDS = 4;

/**
 * The patterns of an ignore file, gitignore-style: one per line, blank lines and `#` comments
 * skipped, trailing spaces dropped, a leading `\` escaping `#`. Returns the patterns, or the
 * first bad line (1-based) and why: negation (`!`) is not supported, and a line longer than
 * {@link MAX_IGNORE_PATTERN} or with more than {@link MAX_IGNORE_WILDCARDS} wildcard runs is
 * refused (an ignore file may come with the folder, so it is not trusted to be cheap to match).
 */
export function parseIgnoreFile(
  text: string,
): { patterns: string[] } | { line: number; message: string } {
  const patterns: string[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = trimEnds(lines[index]!, '', ' \t');
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('!')) {
      return { line: index + 1, message: 'negation (`!`) is not supported' };
    }
    if (line.length > MAX_IGNORE_PATTERN) {
      return { line: index + 1, message: `longer than ${MAX_IGNORE_PATTERN} characters` };
    }
    if ((line.match(/\*+/g) ?? []).length > MAX_IGNORE_WILDCARDS) {
      return { line: index + 1, message: `more than ${MAX_IGNORE_WILDCARDS} wildcards` };
    }
    patterns.push(line.startsWith('\\#') || line.startsWith('\\!') ? line.slice(1) : line);
  }
  return { patterns };
}
