/**
 * Boundary validation with zod's tree-shakable `zod/mini` build (the classic build adds
 * ~90 KB gzip to the core entry). English messages come from zod's locale, applied per parse
 * so cortexis never changes the host app's global zod configuration.
 */
import * as z from 'zod/mini';
import { en } from 'zod/locales';
import type { FieldIssue } from '../errors/index.js';

const localeError = en().localeError;

/** Numbers in [min, max]. */
export const range = (min: number, max: number) => z.number().check(z.gte(min), z.lte(max));

/** Integers in [min, max]. */
export const intRange = (min: number, max: number = Number.MAX_SAFE_INTEGER) =>
  z.int().check(z.gte(min), z.lte(max));

/** Converts zod issues to field issues with dotted paths; an unknown key is named in the path. */
export function toFieldIssues(issues: readonly z.core.$ZodIssue[]): FieldIssue[] {
  return issues.flatMap((issue) => {
    const base = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...base, key].join('.'), message: 'unknown key' }));
    }
    return [{ path: base.join('.') || '(root)', message: issue.message }];
  });
}

/** Parses with English messages; returns the data or the field issues. */
export function safeParse<S extends z.ZodMiniType>(
  schema: S,
  input: unknown,
): { success: true; data: z.output<S> } | { success: false; issues: FieldIssue[] } {
  const result = schema.safeParse(input, { error: localeError });
  return result.success
    ? { success: true, data: result.data }
    : { success: false, issues: toFieldIssues(result.error.issues) };
}

/** `message: text` pairs joined for an error message. */
export function describeIssues(issues: readonly FieldIssue[]): string {
  return issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
}
