/**
 * Citation validation (chat workflow spec): the prompt labels sources S1..Sn and the answer
 * cites them as `[source: S2]`. Labels are matched without regard to case (`[source: s2]` is
 * S2), an alias (a chunk or document id the caller maps to its label) is rewritten to the
 * label, and every other tag — whatever it names, `[source: refunds#0]` included — is removed,
 * also while streaming, so an invalid tag never reaches the client. One filter serves both
 * paths: the whole answer is just one delta.
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

// A tag names one or more ids separated by commas; an id is anything but brackets, commas
// and line breaks (labels, chunk ids such as `refunds#0`, document paths).
const TAG = /^\[\s*source\s*:([^\[\],\n]+(?:,[^\[\],\n]+)*)\]/i;
// Text that could still become a tag when more arrives.
const TAG_PREFIX = /^\[(?:\s*(?:s(?:o(?:u(?:r(?:c(?:e(?:\s*(?::[^\[\]\n]*)?)?)?)?)?)?)?)?)?$/i;

/** Options of {@link createCitationFilter}. */
export interface CitationFilterOptions {
  /**
   * Other names of a label, e.g. a chunk id → `S2`: a tag citing one is rewritten to the label.
   * Matched without regard to case, like the labels.
   */
  readonly aliases?: ReadonlyMap<string, string> | undefined;
}
const MAX_TAG_LENGTH = 200;

/**
 * Creates a filter that keeps tags citing `validLabels` (written in any case, or as one of
 * their `aliases`), normalised to the label, and removes every other tag.
 */
export function createCitationFilter(
  validLabels: Iterable<string>,
  options: CitationFilterOptions = {},
): CitationFilter {
  // Lower-cased name → label: the labels themselves, then their aliases.
  const canonical = new Map<string, string>();
  for (const label of validLabels) canonical.set(label.toLowerCase(), label);
  for (const [alias, label] of options.aliases ?? []) {
    const target = canonical.get(label.toLowerCase());
    const key = alias.toLowerCase();
    if (target !== undefined && !canonical.has(key)) canonical.set(key, target);
  }
  const generated = new Set<string>();
  const kept = new Set<string>();
  const removed = new Set<string>();
  let pending = '';

  const resolveTag = (ids: string[]): string => {
    const good: string[] = [];
    for (const id of ids) {
      const label = canonical.get(id.toLowerCase());
      generated.add(label ?? id);
      if (label === undefined) {
        removed.add(id);
        continue;
      }
      kept.add(label);
      if (!good.includes(label)) good.push(label);
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
        const ids = tag[1]!
          .split(',')
          .map((id) => id.trim())
          .filter((id) => id.length > 0);
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
  options: CitationFilterOptions = {},
): { readonly text: string; readonly report: CitationReport } {
  const filter = createCitationFilter(validLabels, options);
  const out = filter.push(text) + filter.flush();
  return { text: out, report: filter.report() };
}
