import type { MetadataValue } from '../ports/common.js';
import { RESERVED_METADATA_KEYS } from './text.js';

/** Which fields of JSON / JSONL records hold the text, id and title. */
export interface RecordFields {
  /** Field with the text to index. Default `text`. */
  readonly textField?: string | undefined;
  /** Field with the document id. Default `id`; records without one get `<file>#<n>`. */
  readonly idField?: string | undefined;
  /** Field with the title. Default `title`. */
  readonly titleField?: string | undefined;
}

/** One record as a document, or why it was left out. */
export type RecordResult =
  | {
      readonly ok: true;
      /** The record's id, if it has one. */
      readonly id: string | undefined;
      readonly text: string;
      readonly title: string | undefined;
      /** The record's other scalar fields. */
      readonly metadata: Record<string, MetadataValue>;
      /** 1-based line (JSONL) or array position (JSON). */
      readonly position: number;
    }
  | {
      readonly ok: false;
      readonly position: number;
      readonly reason: string;
      /** The text field is there but blank. */
      readonly empty?: true;
    };

/** Thrown when a JSON file is not an array of records (or one record). */
export class RecordsFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordsFormatError';
  }
}

type ResolvedFields = { textField: string; idField: string; titleField: string };

function field(record: Record<string, unknown>, path: string): unknown {
  if (path in record) return record[path];
  // `a.b` reaches into nested objects.
  let value: unknown = record;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function toRecord(value: unknown, position: number, fields: ResolvedFields): RecordResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, position, reason: 'not a JSON object' };
  }
  const record = value as Record<string, unknown>;
  const text = field(record, fields.textField);
  if (typeof text !== 'string') {
    return { ok: false, position, reason: `no text in field '${fields.textField}'` };
  }
  if (text.trim() === '') {
    return { ok: false, position, reason: `field '${fields.textField}' is empty`, empty: true };
  }
  const rawId = field(record, fields.idField);
  const id = typeof rawId === 'string' || typeof rawId === 'number' ? String(rawId) : undefined;
  const rawTitle = field(record, fields.titleField);
  const title =
    typeof rawTitle === 'string' && rawTitle.trim() !== '' ? rawTitle.trim() : undefined;
  const used = new Set([fields.textField, fields.idField, fields.titleField]);
  const metadata: Record<string, MetadataValue> = {};
  for (const [key, item] of Object.entries(record)) {
    if (used.has(key) || RESERVED_METADATA_KEYS.has(key)) continue;
    if (item === null || typeof item === 'string' || typeof item === 'boolean')
      metadata[key] = item;
    else if (typeof item === 'number' && Number.isFinite(item)) metadata[key] = item;
  }
  return { ok: true, id, text, title, metadata, position };
}

function withDefaults(fields: RecordFields): ResolvedFields {
  return {
    textField: fields.textField ?? 'text',
    idField: fields.idField ?? 'id',
    titleField: fields.titleField ?? 'title',
  };
}

/** Records of a JSON file: an array of objects, or one object. */
export function parseJsonRecords(source: string, fields: RecordFields = {}): RecordResult[] {
  let data: unknown;
  try {
    data = JSON.parse(source);
  } catch (error) {
    throw new RecordsFormatError(`invalid JSON: ${(error as Error).message}`);
  }
  const resolved = withDefaults(fields);
  const items = Array.isArray(data) ? data : [data];
  return items.map((item, index) => toRecord(item, index + 1, resolved));
}

/** Records of a JSONL file: one JSON object per non-blank line. */
export function parseJsonLines(source: string, fields: RecordFields = {}): RecordResult[] {
  const resolved = withDefaults(fields);
  const results: RecordResult[] = [];
  source.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      results.push({ ok: false, position: index + 1, reason: 'invalid JSON' });
      return;
    }
    results.push(toRecord(value, index + 1, resolved));
  });
  return results;
}
