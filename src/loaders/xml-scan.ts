/**
 * A minimal XML event scanner for the parts of Office files (`word/document.xml`): start tags,
 * end tags and text, in one pass of `indexOf` and character loops, so the work is linear in
 * the XML and cheap from the first call (a general parser costs more per tag and, cold, several
 * times the whole read). Not a validating parser: processing instructions, comments and the
 * DOCTYPE are skipped, CDATA is text, a tag left open at the end ends the document.
 */

/**
 * What the scanner calls. `attributes()` gives the raw text after the open tag's name (see
 * `attributeValue`), sliced only when asked for: most tags' attributes are never read.
 */
export interface XmlEvents {
  open(name: string, attributes: () => string): void;
  /** Raw text between tags (entities not decoded: see `decodeXmlEntities`). */
  text(raw: string, cdata: boolean): void;
  close(name: string): void;
}

const LT = 60; // <
const GT = 62; // >
const SLASH = 47;
const QUOTE = 34;
const APOSTROPHE = 39;

function isNameEnd(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13 || code === SLASH || code === GT;
}

/** The end (index of `>`) of the tag starting at `from`, quotes respected; -1 when none. */
function tagEnd(xml: string, from: number): number {
  let quote = 0;
  for (let at = from; at < xml.length; at++) {
    const code = xml.charCodeAt(at);
    // `<` is never inside a tag, not even in a quoted value: stopping there keeps the
    // scan linear when quotes are left open.
    if (code === LT) return -1;
    if (quote !== 0) {
      if (code === quote) quote = 0;
    } else if (code === QUOTE || code === APOSTROPHE) {
      quote = code;
    } else if (code === GT) {
      return at;
    }
  }
  return -1;
}

/** Calls `events` for every start tag, end tag and text of `xml`, in order. */
export function scanXml(xml: string, events: XmlEvents): void {
  const length = xml.length;
  let at = 0;
  let from = 0;
  let to = 0;
  const attributes = (): string => xml.slice(from, to);
  while (at < length) {
    const lt = xml.indexOf('<', at);
    if (lt === -1) {
      events.text(xml.slice(at), false);
      return;
    }
    if (lt > at) events.text(xml.slice(at, lt), false);
    const next = xml.charCodeAt(lt + 1);
    if (next === 63 /* ? */) {
      const end = xml.indexOf('?>', lt + 2);
      if (end === -1) return;
      at = end + 2;
      continue;
    }
    if (next === 33 /* ! */) {
      if (xml.startsWith('<!--', lt)) {
        const end = xml.indexOf('-->', lt + 4);
        if (end === -1) return;
        at = end + 3;
      } else if (xml.startsWith('<![CDATA[', lt)) {
        const end = xml.indexOf(']]>', lt + 9);
        if (end === -1) return;
        events.text(xml.slice(lt + 9, end), true);
        at = end + 3;
      } else {
        const end = xml.indexOf('>', lt + 2);
        if (end === -1) return;
        at = end + 1;
      }
      continue;
    }
    if (next === SLASH) {
      const end = xml.indexOf('>', lt + 2);
      if (end === -1) return;
      events.close(xml.slice(lt + 2, end).trim());
      at = end + 1;
      continue;
    }
    const end = tagEnd(xml, lt + 1);
    if (end === -1) {
      // A `<` that starts no tag: text, as far as the next `<`.
      const resume = xml.indexOf('<', lt + 1);
      events.text(xml.slice(lt, resume === -1 ? length : resume), false);
      at = resume === -1 ? length : resume;
      continue;
    }
    let nameEnd = lt + 1;
    while (nameEnd < end && !isNameEnd(xml.charCodeAt(nameEnd))) nameEnd++;
    const name = xml.slice(lt + 1, nameEnd);
    const selfClosing = xml.charCodeAt(end - 1) === SLASH;
    if (name !== '') {
      from = nameEnd;
      to = selfClosing ? end - 1 : end;
      events.open(name, attributes);
      if (selfClosing) events.close(name);
    }
    at = end + 1;
  }
}

/** The value of attribute `name` in a tag's raw attributes, entities decoded; undefined when absent. */
export function attributeValue(attributes: string, name: string): string | undefined {
  let from = 0;
  for (;;) {
    const found = attributes.indexOf(name, from);
    if (found === -1) return undefined;
    from = found + name.length;
    const before = found === 0 ? 32 : attributes.charCodeAt(found - 1);
    if (!(before === 32 || before === 9 || before === 10 || before === 13)) continue;
    let at = from;
    while (attributes.charCodeAt(at) === 32) at++;
    if (attributes.charCodeAt(at) !== 61 /* = */) continue;
    at++;
    while (attributes.charCodeAt(at) === 32) at++;
    const quote = attributes.charCodeAt(at);
    if (quote !== QUOTE && quote !== APOSTROPHE) continue;
    const close = attributes.indexOf(quote === QUOTE ? '"' : "'", at + 1);
    if (close === -1) return undefined;
    return decodeXmlEntities(attributes.slice(at + 1, close));
  }
}

/** Every attribute of a tag's raw attributes, by name, entities decoded. */
export function attributeMap(attributes: string): Record<string, string> {
  const map: Record<string, string> = {};
  let at = 0;
  const length = attributes.length;
  while (at < length) {
    const equals = attributes.indexOf('=', at);
    if (equals === -1) break;
    const name = attributes.slice(at, equals).trim();
    let open = equals + 1;
    while (attributes.charCodeAt(open) === 32) open++;
    const quote = attributes[open];
    if (quote !== '"' && quote !== "'") break;
    const close = attributes.indexOf(quote, open + 1);
    if (close === -1) break;
    if (name !== '') map[name] = decodeXmlEntities(attributes.slice(open + 1, close));
    at = close + 1;
  }
  return map;
}

const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};

/** The longest entity reference looked at (`&#x10FFFF;`). */
const MAX_ENTITY = 10;

/** The index of the `;` ending an entity reference that starts at `amp`, else -1 (a bounded look). */
function entityEnd(raw: string, amp: number): number {
  const last = Math.min(raw.length, amp + MAX_ENTITY + 1);
  for (let at = amp + 1; at < last; at++) {
    const code = raw.charCodeAt(at);
    if (code === 59 /* ; */) return at;
    if (code === 38 /* & */) return -1;
  }
  return -1;
}

function decodeEntity(entity: string): string | undefined {
  const named = NAMED[entity];
  if (named !== undefined || !entity.startsWith('#')) return named;
  const hex = entity[1] === 'x' || entity[1] === 'X';
  const code = Number.parseInt(entity.slice(hex ? 2 : 1), hex ? 16 : 10);
  const valid = Number.isInteger(code) && code > 0 && code <= 0x10ffff;
  return valid && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : undefined;
}

/** XML text with its entity and character references decoded (unknown ones kept as written). */
export function decodeXmlEntities(raw: string): string {
  let amp = raw.indexOf('&');
  if (amp === -1) return raw;
  let out = '';
  let from = 0;
  while (amp !== -1) {
    const semicolon = entityEnd(raw, amp);
    const decoded = semicolon === -1 ? undefined : decodeEntity(raw.slice(amp + 1, semicolon));
    if (decoded === undefined) {
      amp = raw.indexOf('&', amp + 1);
      continue;
    }
    out += raw.slice(from, amp) + decoded;
    from = semicolon + 1;
    amp = raw.indexOf('&', from);
  }
  return out + raw.slice(from);
}
