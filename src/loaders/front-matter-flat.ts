/**
 * Front matter of the commonest shape — one `key: value` per line, plain values — read without
 * the YAML parser, which costs about 3 s per MB of such text (57 ms for 900 keys, warm). Gives
 * exactly what `yaml`'s `parse` gives (YAML 1.2 core schema) for what it accepts and `undefined`
 * for anything else, which the caller then hands to `yaml`: quotes, comments, nesting,
 * continuation lines, flow collections, anchors, tags, floats, hex and octal numbers, or a key
 * that is not a plain word.
 */

/** A key that YAML reads as this same string (not `null`, `true`, a number, …). */
const PLAIN_KEY = /^[A-Za-z_][\w-]*$/;
const NOT_STRING_KEY = /^(?:null|Null|NULL|true|True|TRUE|false|False|FALSE)$/;
/**
 * A value that starts with a letter and holds nothing YAML reads as syntax or refuses (no
 * `:`, `#`, quotes, tabs, control characters, NEL, line or paragraph separators, BOM).
 */
const PLAIN_TEXT = /^[A-Za-z][^:#"'`\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]*$/;
const DECIMAL = /^[-+]?\d{1,15}$/;

/** `text` without the spaces (only U+0020: YAML's other blanks are tabs) at either end. */
function trimSpaces(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) === 32) start++;
  while (end > start && text.charCodeAt(end - 1) === 32) end--;
  return text.slice(start, end);
}

/** A value as YAML's core schema resolves it, or `undefined` when `yaml` must decide. */
function plainValue(raw: string): unknown {
  const value = trimSpaces(raw);
  if (value === '' || value === '~' || value === 'null' || value === 'Null' || value === 'NULL') {
    return null;
  }
  if (value === 'true' || value === 'True' || value === 'TRUE') return true;
  if (value === 'false' || value === 'False' || value === 'FALSE') return false;
  if (DECIMAL.test(value)) return Number.parseInt(value, 10);
  return PLAIN_TEXT.test(value) ? value : undefined;
}

/**
 * `key: value` lines (empty lines allowed) as an object, or `undefined` when the text uses any
 * YAML beyond that. A repeated key keeps its last value, as `yaml` with `uniqueKeys: false`.
 */
export function parseFlatFrontMatter(text: string): Record<string, unknown> | undefined {
  const data: Record<string, unknown> = {};
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) return undefined;
    const key = line.slice(0, colon);
    if (!PLAIN_KEY.test(key) || NOT_STRING_KEY.test(key) || key === '__proto__') return undefined;
    const rest = line.slice(colon + 1);
    if (rest !== '' && rest[0] !== ' ') return undefined;
    const value = plainValue(rest);
    if (value === undefined) return undefined;
    data[key] = value;
  }
  return data;
}
