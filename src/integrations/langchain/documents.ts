import { ValidationError, type FieldIssue } from '../../errors/index.js';
import type { MetadataValue } from '../../ports/common.js';
import { RESERVED_METADATA_KEYS } from '../../validate.js';
import type { IngestDocument } from '../../types.js';

/**
 * The fields of a LangChain `Document` this conversion reads. A `Document` from
 * `@langchain/core/documents` fits as is; so does any `{ pageContent, metadata }` object.
 */
export interface LangChainDocumentLike {
  /** The text. */
  readonly pageContent: string;
  /** Any metadata; nested objects are flattened to dotted keys. */
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
  /** Optional id (LangChain ≥ 0.2 documents have one when their store assigned it). */
  readonly id?: string | undefined;
}

/** Options of {@link fromLangChainDocuments}. */
export interface FromLangChainDocumentsOptions {
  /**
   * Flattened metadata key whose value (a string or number) becomes the document id when the
   * document has no `id`, e.g. `'source'` for one document per file. Default: none, the id is
   * then `lc-` plus a stable hash of the text and metadata.
   */
  readonly idKey?: string | undefined;
  /** Flattened metadata key of the title (default `'title'`). */
  readonly titleKey?: string | undefined;
  /** Flattened metadata key of the location, path or URL (default `'source'`, as LangChain loaders set it). */
  readonly uriKey?: string | undefined;
  /** Prefix for metadata keys cortexis reserves for itself, such as `section` (default `'langchain.'`). */
  readonly reservedKeyPrefix?: string | undefined;
}

const MAX_TITLE_LENGTH = 1000;
const MAX_URI_LENGTH = 4000;
const RESERVED: ReadonlySet<string> = new Set(RESERVED_METADATA_KEYS);

/**
 * Converts LangChain `Document`s into documents for `engine.ingest`, one for one and in order:
 *
 * * `pageContent` becomes `text`; it must be a non-blank string.
 * * Nested metadata is flattened to dotted keys: `{ loc: { lines: { from: 1 } } }` becomes
 *   `{ 'loc.lines.from': 1 }`. Strings, booleans, `null` and finite numbers are kept; other
 *   numbers become `null`, bigints decimal strings, arrays their JSON text
 *   (`'["a","b"]'`: cortexis metadata holds scalars only), `undefined` and functions are
 *   dropped, and any other object (a `Date`, a class instance) is replaced by its JSON form
 *   (a `Date` becomes its ISO string) and then follows the same rules.
 * * `title` comes from the `titleKey` field (default `title`), `uri` from the `uriKey` field
 *   (default `source`, which also stays in the metadata so filters can use it).
 * * Keys cortexis reserves (`documentId`, `chunkIndex`, `revision`, `text`, `title`, `uri`,
 *   `section`, `tokenCount`) are renamed with `reservedKeyPrefix`, e.g. `langchain.section`.
 * * The id is `doc.id`, else the `idKey` field, else `lc-` and a hash of the text and
 *   metadata, stable across runs (ingesting the same documents again replaces them rather than
 *   duplicating them); exact duplicates without an id are then given once.
 *
 * Bad input (not a list, a non-string or blank `pageContent`, metadata that is not an object,
 * a circular reference, two fields flattening to one key, a missing `idKey` field) throws a
 * `ValidationError` whose issues name the index, e.g. `2.pageContent`.
 *
 * @example
 * ```ts
 * import { fromLangChainDocuments } from 'cortexis/langchain';
 *
 * const chunks = await splitter.splitDocuments(await loader.load());
 * await engine.ingest(fromLangChainDocuments(chunks));
 * ```
 */
export function fromLangChainDocuments(
  docs: readonly LangChainDocumentLike[],
  options: FromLangChainDocumentsOptions = {},
): IngestDocument[] {
  if (!Array.isArray(docs)) {
    throw invalid([{ path: '', message: 'expected an array of documents' }]);
  }
  const issues: FieldIssue[] = [];
  const converted: IngestDocument[] = [];
  const hashedIds = new Set<string>();
  (docs as readonly unknown[]).forEach((doc, index) => {
    const result = convert(doc, index, options, issues);
    if (result === undefined) return;
    if (result.hashed) {
      if (hashedIds.has(result.doc.id)) return;
      hashedIds.add(result.doc.id);
    }
    converted.push(result.doc);
  });
  if (issues.length > 0) throw invalid(issues);
  return converted;
}

/**
 * Flattens nested metadata to dotted keys with the rules of {@link fromLangChainDocuments}:
 * `{ loc: { lines: { from: 1 } }, tags: ['a'] }` becomes `{ 'loc.lines.from': 1, tags: '["a"]' }`.
 * A circular reference or two fields flattening to one key throw a `ValidationError`.
 */
export function flattenMetadata(
  metadata: Readonly<Record<string, unknown>>,
): Record<string, MetadataValue> {
  const issues: FieldIssue[] = [];
  const flat = collectFlatMetadata(metadata, 'metadata', issues);
  if (issues.length > 0) throw invalid(issues, 'Invalid metadata');
  return flat;
}

/** Flattens metadata, reporting issues with paths under `path`. */
function collectFlatMetadata(
  metadata: Readonly<Record<string, unknown>>,
  path: string,
  issues: FieldIssue[],
): Record<string, MetadataValue> {
  // A Map, then Object.fromEntries: a key such as `__proto__` stays an ordinary field.
  const flat = new Map<string, MetadataValue>();
  const visit = (value: unknown, key: string, ancestors: readonly object[]): void => {
    const scalar = toScalar(value);
    if (scalar === undefined) return;
    if (scalar !== NOT_SCALAR) {
      if (key === '') {
        issues.push({ path, message: 'metadata keys must not be empty' });
      } else if (flat.has(key)) {
        issues.push({
          path: `${path}.${key}`,
          message: `two metadata fields flatten to the key '${key}'`,
        });
      } else {
        flat.set(key, scalar);
      }
      return;
    }
    const object = value as object;
    if (ancestors.includes(object)) {
      issues.push({ path: `${path}.${key}`, message: 'circular reference' });
      return;
    }
    if (isPlainObject(object)) {
      for (const [child, childValue] of Object.entries(object)) {
        visit(childValue, key === '' ? child : `${key}.${child}`, [...ancestors, object]);
      }
      return;
    }
    let json: string | undefined;
    try {
      json = JSON.stringify(object, jsonReplacer);
    } catch {
      issues.push({ path: `${path}.${key}`, message: 'cannot be converted to JSON' });
      return;
    }
    if (json === undefined) return;
    // Arrays stay JSON text; any other object is replaced by its JSON form and visited again.
    visit(Array.isArray(object) ? json : JSON.parse(json), key, [...ancestors, object]);
  };
  visit(metadata, '', []);
  return Object.fromEntries(flat);
}

const NOT_SCALAR = Symbol('not a scalar');

/** The metadata value of a scalar; undefined to drop it; NOT_SCALAR for objects. */
function toScalar(value: unknown): MetadataValue | undefined | typeof NOT_SCALAR {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'bigint':
      return value.toString();
    case 'object':
      return value === null ? null : NOT_SCALAR;
    default:
      // undefined, functions and symbols have no JSON form: dropped.
      return undefined;
  }
}

function isPlainObject(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function jsonReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

interface Converted {
  readonly doc: IngestDocument;
  /** Whether the id is the content hash (exact duplicates are then dropped). */
  readonly hashed: boolean;
}

function convert(
  doc: unknown,
  index: number,
  options: FromLangChainDocumentsOptions,
  issues: FieldIssue[],
): Converted | undefined {
  if (typeof doc !== 'object' || doc === null) {
    issues.push({ path: `${index}`, message: 'expected a document object' });
    return undefined;
  }
  const { pageContent, metadata = {}, id } = doc as Record<string, unknown>;
  const before = issues.length;
  if (typeof pageContent !== 'string') {
    issues.push({ path: `${index}.pageContent`, message: 'expected a string' });
  } else if (pageContent.trim().length === 0) {
    issues.push({ path: `${index}.pageContent`, message: 'must not be empty' });
  }
  if (id !== undefined && id !== null && typeof id !== 'string') {
    issues.push({ path: `${index}.id`, message: 'expected a string' });
  }
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    issues.push({ path: `${index}.metadata`, message: 'expected an object' });
    return undefined;
  }
  const flat = collectFlatMetadata(
    metadata as Record<string, unknown>,
    `${index}.metadata`,
    issues,
  );
  if (issues.length > before || typeof pageContent !== 'string') return undefined;

  const titleKey = options.titleKey ?? 'title';
  const uriKey = options.uriKey ?? 'source';
  const prefix = options.reservedKeyPrefix ?? 'langchain.';
  const title = nonBlank(own(flat, titleKey))?.slice(0, MAX_TITLE_LENGTH);
  const uri = nonBlank(own(flat, uriKey));
  const usedUri = uri !== undefined && uri.length <= MAX_URI_LENGTH ? uri : undefined;
  const entries: [string, MetadataValue][] = [];
  for (const [key, value] of Object.entries(flat)) {
    if (RESERVED.has(key)) {
      // A reserved key used as the title or uri is that field; any other is renamed.
      if ((key === titleKey && title !== undefined) || (key === uriKey && usedUri !== undefined)) {
        continue;
      }
      const renamed = `${prefix}${key}`;
      if (Object.hasOwn(flat, renamed)) {
        issues.push({
          path: `${index}.metadata.${key}`,
          message: `reserved key renamed to '${renamed}', which is already a field`,
        });
        return undefined;
      }
      entries.push([renamed, value]);
    } else {
      entries.push([key, value]);
    }
  }
  const out = Object.fromEntries(entries);

  let documentId = typeof id === 'string' && id.length > 0 ? id : undefined;
  if (documentId === undefined && options.idKey !== undefined) {
    const value = own(flat, options.idKey);
    if (typeof value === 'string' || typeof value === 'number') {
      documentId = String(value);
    } else {
      issues.push({
        path: `${index}.metadata.${options.idKey}`,
        message: 'expected a string or number (idKey) when the document has no id',
      });
      return undefined;
    }
  }
  const hashed = documentId === undefined;
  return {
    hashed,
    doc: {
      id: documentId ?? `lc-${contentHash(pageContent, out)}`,
      text: pageContent,
      ...(title === undefined ? {} : { title }),
      ...(usedUri === undefined ? {} : { uri: usedUri }),
      ...(Object.keys(out).length === 0 ? {} : { metadata: out }),
    },
  };
}

/** A field of the flattened metadata (never an inherited property such as `constructor`). */
function own(flat: Record<string, MetadataValue>, key: string): MetadataValue | undefined {
  return Object.hasOwn(flat, key) ? flat[key] : undefined;
}

/** The value when it is a non-blank string. */
function nonBlank(value: MetadataValue | undefined): string | undefined {
  return typeof value === 'string' && value.trim().length > 0 ? value : undefined;
}

/** 64 bits (two independent 32-bit mixes) of the text and metadata, as 16 hex digits. */
function contentHash(text: string, metadata: Record<string, MetadataValue>): string {
  const keys = Object.keys(metadata).sort();
  const input = JSON.stringify([text, keys.map((key) => [key, metadata[key]])]);
  let first = 0x811c9dc5;
  let second = 0x9747b28c;
  for (let index = 0; index < input.length; index++) {
    const code = input.charCodeAt(index);
    first = Math.imul(first ^ code, 0x01000193);
    second = Math.imul(second ^ code, 0x5bd1e995);
    second ^= second >>> 15;
  }
  const hex = (value: number) => (value >>> 0).toString(16).padStart(8, '0');
  return `${hex(first)}${hex(second)}`;
}

function invalid(
  issues: readonly FieldIssue[],
  what = 'Invalid LangChain documents',
): ValidationError {
  const shown = issues
    .slice(0, 5)
    .map((issue) => `${issue.path}: ${issue.message}`)
    .join('; ');
  const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : '';
  return new ValidationError(`${what}: ${shown}${more}`, issues);
}
