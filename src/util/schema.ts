/**
 * Boundary validation with zod's tree-shakable `zod/mini` build (the classic build adds
 * ~90 KB gzip to the core entry). English messages come from zod's locale, applied per parse
 * so cortexis never changes the host app's global zod configuration.
 *
 * Schemas are built on first use ({@link lazySchema}, {@link schemaOnFirstUse}), not when a
 * module loads: building every schema of the engine made up a fifth of `import('cortexis')`.
 */
import * as z from 'zod/mini';
import { en } from 'zod/locales';
import type { FieldIssue } from '../errors/index.js';

let localeError: z.core.$ZodErrorMap | undefined;

/** A memoised schema: `build` runs on the first call, every later call returns the same schema. */
export function lazySchema<S>(build: () => S): () => S {
  let schema: S | undefined;
  return () => (schema ??= build());
}

/**
 * A schema constant of the public API that is built the first time it is used: a proxy that
 * forwards every operation to `schema()` (the parse methods, `_zod`, `instanceof`).
 */
export function schemaOnFirstUse<S extends object>(schema: () => S): S {
  const handler: ProxyHandler<object> = {
    get: (_target, key) => Reflect.get(schema(), key),
    set: (_target, key, value) => Reflect.set(schema(), key, value),
    has: (_target, key) => Reflect.has(schema(), key),
    ownKeys: () => Reflect.ownKeys(schema()),
    getOwnPropertyDescriptor: (target, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(schema(), key);
      // A proxy may report a non-configurable property only when its target has it too.
      if (descriptor?.configurable === false) Reflect.defineProperty(target, key, descriptor);
      return descriptor;
    },
    defineProperty: (target, key, descriptor) => {
      const defined = Reflect.defineProperty(schema(), key, descriptor);
      if (defined && descriptor.configurable === false) {
        Reflect.defineProperty(target, key, descriptor);
      }
      return defined;
    },
    deleteProperty: (_target, key) => Reflect.deleteProperty(schema(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
  };
  return new Proxy({}, handler) as S;
}

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
  const result = schema.safeParse(input, { error: (localeError ??= en().localeError) });
  return result.success
    ? { success: true, data: result.data }
    : { success: false, issues: toFieldIssues(result.error.issues) };
}

/** `message: text` pairs joined for an error message. */
export function describeIssues(issues: readonly FieldIssue[]): string {
  return issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
}
