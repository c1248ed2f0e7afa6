import { attributeMap, attributeValue, scanXml } from './xml-scan.js';

/** The namespaces of WordprocessingML (transitional and strict). */
export const WORDPROCESSING_NAMESPACES: ReadonlySet<string> = new Set([
  'http://schemas.openxmlformats.org/wordprocessingml/2006/main',
  'http://purl.oclc.org/ooxml/wordprocessingml/main',
]);

/** What the DOCX reader needs of a paragraph style. */
export interface ParagraphStyle {
  /** The style's name (`heading 1`, `Title`), else its id. */
  readonly name: string;
  /** The style it is based on, by id. */
  readonly basedOn: string | undefined;
  /** Its own `w:outlineLvl` value (`0` is the top level), when it has one. */
  readonly outline: string | undefined;
  /** Whether its own paragraph properties number it (`w:numPr`): a list style. */
  readonly numbered: boolean;
}

/** Paragraph styles by id. */
export type StyleTable = ReadonlyMap<string, ParagraphStyle>;

/** The most `basedOn` links followed (a loop in a hostile file ends there). */
const MAX_BASED_ON = 16;

/**
 * The WordprocessingML prefix a root element's `xmlns:*` attributes bind (`''` for the default
 * namespace), else `w`.
 */
export function wordPrefix(attribs: Record<string, string>): string {
  for (const [name, value] of Object.entries(attribs)) {
    if (!WORDPROCESSING_NAMESPACES.has(value)) continue;
    if (name === 'xmlns') return '';
    if (name.startsWith('xmlns:')) return name.slice(6);
  }
  return 'w';
}

/** A WordprocessingML name with its prefix (`w:val`), none for the default namespace. */
export function qualified(prefix: string, local: string): string {
  return prefix === '' ? local : `${prefix}:${local}`;
}

/** An outline level (`w:outlineLvl`, `0`–`8`) as a heading level 1–6, else undefined (9: body text). */
export function outlineHeading(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const level = Number.parseInt(value, 10);
  if (!(level >= 0 && level <= 8)) return undefined;
  return Math.min(level + 1, 6);
}

/** The heading level a style name or id stands for: `heading 1`…`6`, `Title` (1), `Subtitle` (2). */
function headingOfName(name: string): number | undefined {
  let compact = '';
  for (const char of name.toLowerCase()) if (char !== ' ') compact += char;
  if (compact === 'title') return 1;
  if (compact === 'subtitle') return 2;
  if (compact.length === 8 && compact.startsWith('heading')) {
    const level = compact.charCodeAt(7) - 48;
    if (level >= 1 && level <= 6) return level;
  }
  return undefined;
}

/**
 * What a paragraph style makes of its paragraphs: a heading (by its name, else its outline
 * level, else those of the style it is based on) or a list item (numbered by the style).
 */
export function styleRole(
  styles: StyleTable,
  id: string,
): { heading: number | undefined; numbered: boolean } {
  let heading = headingOfName(id);
  let numbered = false;
  let current: string | undefined = id;
  for (let step = 0; current !== undefined && step < MAX_BASED_ON; step++) {
    const style = styles.get(current);
    if (style === undefined) break;
    heading ??= headingOfName(style.name) ?? outlineHeading(style.outline);
    numbered ||= style.numbered;
    if (heading !== undefined) break;
    current = style.basedOn;
  }
  return { heading, numbered };
}

/** The paragraph styles of `word/styles.xml`, read from XML events (`scanXml`). */
export function readStyles(xml: string): StyleTable {
  const styles = new Map<string, ParagraphStyle>();
  let w = 'w';
  let current:
    | {
        id: string;
        name?: string;
        basedOn?: string;
        outline?: string | undefined;
        numbered: boolean;
      }
    | undefined;
  let pPr = 0;
  let depth = 0;
  const q = (local: string) => qualified(w, local);
  scanXml(xml, {
    open(name, attributes) {
      if (++depth === 1) w = wordPrefix(attributeMap(attributes()));
      if (name === q('style')) {
        const id = attributeValue(attributes(), q('styleId'));
        const type = attributeValue(attributes(), q('type')) ?? 'paragraph';
        current = id !== undefined && type === 'paragraph' ? { id, numbered: false } : undefined;
        return;
      }
      if (current === undefined) return;
      const value = () => attributeValue(attributes(), q('val'));
      if (name === q('name')) current.name = value() ?? current.id;
      else if (name === q('basedOn')) current.basedOn = value() ?? '';
      else if (name === q('pPr')) pPr++;
      else if (pPr > 0 && name === q('outlineLvl')) current.outline = value();
      else if (pPr > 0 && name === q('numPr')) current.numbered = true;
    },
    text() {},
    close(name) {
      depth = Math.max(0, depth - 1);
      if (name === q('pPr')) pPr = Math.max(0, pPr - 1);
      else if (name === q('style') && current !== undefined) {
        const { id, name: styleName, basedOn, outline, numbered } = current;
        styles.set(id, { name: styleName ?? id, basedOn, outline, numbered });
        current = undefined;
      }
    },
  });
  return styles;
}
