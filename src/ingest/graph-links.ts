/**
 * Link extraction for the knowledge graph: the link targets a document's text names (markdown,
 * reference-style and wiki links, relative paths), the ids or uris of a metadata list, and the
 * keys a target may be known by (normalised, resolved against the citing document's uri).
 */

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
// No part of a link spans a `[`: an attempt from each `[` stops at the next one, so runs of `[`
// (or of unclosed links) cost linear time, not quadratic (issue 28).
const MARKDOWN_LINK = /\[[^\][\n]*\]\(\s*<?([^)\s>[\]]+)>?(?:\s+["'(][^)[\]\n]*)?\)/g;
const REFERENCE_LINK = /^[ \t]{0,3}\[[^\][\r\n]+\]:[ \t]*<?(\S+?)>?(?:[ \t]+.*)?$/gm;
const WIKI_LINK = /\[\[([^\][|#\n]+)(?:[#|][^\][\n]*)?\]\]/g;
const RELATIVE_PATH = /(?:^|[\s("'`])(\.{1,2}\/[^\s)"'`\]>]+)/g;

/** Link targets written in a text: markdown, reference-style, wiki links and relative paths. */
export function extractLinks(text: string): string[] {
  const targets = new Set<string>();
  if (!text.includes('[') && !text.includes('./')) return [];
  for (const pattern of [MARKDOWN_LINK, REFERENCE_LINK, WIKI_LINK, RELATIVE_PATH]) {
    for (const match of text.matchAll(pattern)) {
      const target = match[1]?.trim();
      if (target) targets.add(target);
    }
  }
  return [...targets];
}

/** Ids or uris in a metadata value: a JSON array, or a comma/whitespace-separated list. */
export function parseReferenceList(value: unknown): string[] {
  if (typeof value !== 'string' || value.trim().length === 0) return [];
  const text = value.trim();
  if (text.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (Array.isArray(parsed)) {
        return parsed.filter((item): item is string => typeof item === 'string' && item !== '');
      }
    } catch {
      // not JSON: fall through to the list form
    }
  }
  return text.split(/[\s,]+/).filter((item) => item.length > 0);
}

/** Resolves `.` and `..` segments of a slash-separated path. */
function normalizePath(path: string): string {
  const absolute = path.startsWith('/');
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
    else if (part !== '..' || !absolute) parts.push(part);
  }
  return (absolute ? '/' : '') + parts.join('/');
}

/** `uri` up to its fragment or query (a search, not /[#?].*$/, which backtracks). */
function withoutFragment(uri: string): string {
  const at = uri.search(/[#?]/);
  return at === -1 ? uri : uri.slice(0, at);
}

/** A uri or path in the form lookups compare: no fragment or query, `.` and `..` resolved. */
export function normalizeUri(uri: string): string {
  const bare = withoutFragment(uri.trim());
  if (SCHEME.test(bare)) return bare;
  return normalizePath(bare.replace(/\\/g, '/'));
}

/**
 * The keys a link target may be known by: as written, and resolved against the citing
 * document's uri when relative.
 */
export function linkKeys(target: string, fromUri: string | undefined): string[] {
  const bare = withoutFragment(target.trim());
  if (bare.length === 0) return [];
  const keys = new Set([bare, normalizeUri(bare)]);
  if (fromUri !== undefined && !SCHEME.test(bare) && !bare.startsWith('/')) {
    if (SCHEME.test(fromUri)) {
      try {
        keys.add(withoutFragment(new URL(bare, fromUri).href));
      } catch {
        // not resolvable against this uri
      }
    } else {
      const base = normalizeUri(fromUri);
      const directory = base.includes('/') ? base.slice(0, base.lastIndexOf('/') + 1) : '';
      keys.add(normalizePath(directory + bare));
    }
  }
  keys.delete('');
  return [...keys];
}
