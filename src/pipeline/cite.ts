/**
 * Citation validation (chat workflow spec): the prompt labels sources S1..Sn and the answer
 * cites them as `[source: S2]`. Tags naming no retrieved source are removed — also while
 * streaming, so an invalid tag never reaches the client. One filter serves both paths: the
 * whole answer is just one delta.
 */

/** What the answer cited. */
export interface CitationReport {
  /** Labels cited, in first-cited order (valid or not). */
  readonly generatedIds: readonly string[];
  /** Cited labels that name a retrieved source. */
  readonly validIds: readonly string[];
  /** Cited labels removed because they name no retrieved source. */
  readonly removed: readonly string[];
}

/** A streaming citation filter. */
export interface CitationFilter {
  /** Takes the next piece of model output; returns the text safe to emit now (maybe ''). */
  push(delta: string): string;
  /** Ends the stream; returns whatever was held back (an unfinished tag is dropped). */
  flush(): string;
  /** What was cited so far. */
  report(): CitationReport;
}

const TAG = /^\[\s*source\s*:\s*([A-Za-z0-9_-]+(?:\s*,\s*[A-Za-z0-9_-]+)*)\s*\]/i;
// Text that could still become a tag when more arrives.
const TAG_PREFIX =
  /^\[(?:\s*(?:s(?:o(?:u(?:r(?:c(?:e(?:\s*(?::[\sA-Za-z0-9_,-]*)?)?)?)?)?)?)?)?)?$/i;
const MAX_TAG_LENGTH = 200;

/** Creates a filter that keeps tags citing `validLabels` and removes every other tag. */
export function createCitationFilter(validLabels: Iterable<string>): CitationFilter {
  const valid = new Set(validLabels);
  const generated = new Set<string>();
  const kept = new Set<string>();
  const removed = new Set<string>();
  let pending = '';

  const resolveTag = (ids: string[]): string => {
    const good = ids.filter((id) => valid.has(id));
    for (const id of ids) {
      generated.add(id);
      (valid.has(id) ? kept : removed).add(id);
    }
    return good.length === 0 ? '' : `[source: ${good.join(', ')}]`;
  };

  const drain = (final: boolean): string => {
    let out = '';
    for (;;) {
      const open = pending.indexOf('[');
      if (open < 0) {
        // Hold trailing white space: a removed tag takes the space before it along.
        const keep = final ? pending.length : pending.trimEnd().length;
        out += pending.slice(0, keep);
        pending = pending.slice(keep);
        return out;
      }
      const before = pending.slice(0, open);
      const space = before.length - before.trimEnd().length;
      const rest = pending.slice(open);
      const tag = TAG.exec(rest);
      if (tag) {
        const ids = tag[1]!.split(',').map((id) => id.trim());
        const replacement = resolveTag(ids);
        out += replacement === '' ? before.slice(0, before.length - space) : before + replacement;
        pending = rest.slice(tag[0].length);
        continue;
      }
      if (!final && rest.length < MAX_TAG_LENGTH && TAG_PREFIX.test(rest)) {
        out += before.slice(0, before.length - space);
        pending = pending.slice(before.length - space);
        return out;
      }
      if (final && rest.length > 1 && TAG_PREFIX.test(rest)) {
        // An unfinished citation at the very end cannot be validated: drop it.
        out += before.slice(0, before.length - space);
        pending = '';
        return out;
      }
      out += pending.slice(0, open + 1);
      pending = pending.slice(open + 1);
    }
  };

  return {
    push(delta) {
      pending += delta;
      return drain(false);
    },
    flush() {
      return drain(true);
    },
    report() {
      return { generatedIds: [...generated], validIds: [...kept], removed: [...removed] };
    },
  };
}

/** Validates the citations of a whole answer. */
export function validateCitations(
  text: string,
  validLabels: Iterable<string>,
): { readonly text: string; readonly report: CitationReport } {
  const filter = createCitationFilter(validLabels);
  const out = filter.push(text) + filter.flush();
  return { text: out, report: filter.report() };
}
