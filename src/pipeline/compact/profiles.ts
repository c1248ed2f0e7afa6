/**
 * Chat profiles of the compact stage (seed 001): the built-in profiles, the schema of a custom
 * profile and of the `compaction` config section (which config.ts composes), and the profile
 * in force for a session.
 */
import * as z from 'zod/mini';
import { ConfigError } from '../../errors/index.js';
import { intRange, lazySchema } from '../../util/schema.js';
import type { SummaryPosition } from '../prompt.js';

/** How a conversation is kept within bounds (seed 001's chat profiles). */
export interface ChatProfile {
  /** History tokens (uncovered messages + the current summary) above which compaction runs. */
  readonly thresholdTokens: number;
  /** Turns (user messages) of uncovered history above which compaction runs. */
  readonly maxTurns: number;
  /** Most tokens of a summary: the summarising call's `maxTokens`, and the stored cap. */
  readonly summaryTokens: number;
  /** Tokens of the context budget reserved for conversation memory (summary + recent turns). */
  readonly reservedTokens: number;
  /**
   * The model that writes the summaries, by its name in the engine's `models` (seed 001's
   * `summarization_model`). Default: the model answering the session.
   */
  readonly summarizationModel?: string | undefined;
  /** Whether the summary goes into the model's context at all (default true; it is stored either way). */
  readonly includeSummaryInContext: boolean;
  /** Where the summary goes in the system prompt (default `before_retrieval`, as in seed 001). */
  readonly summaryPosition: SummaryPosition;
}

/** The built-in profiles: `default`, `long_context` and `compact` (seed 001's numbers). */
export const CHAT_PROFILES: Readonly<Record<'default' | 'long_context' | 'compact', ChatProfile>> =
  Object.freeze({
    default: Object.freeze({
      thresholdTokens: 2000,
      maxTurns: 10,
      summaryTokens: 500,
      reservedTokens: 800,
      includeSummaryInContext: true,
      summaryPosition: 'before_retrieval',
    }),
    long_context: Object.freeze({
      thresholdTokens: 4000,
      maxTurns: 20,
      summaryTokens: 800,
      reservedTokens: 1500,
      includeSummaryInContext: true,
      summaryPosition: 'before_retrieval',
    }),
    compact: Object.freeze({
      thresholdTokens: 1000,
      maxTurns: 5,
      summaryTokens: 300,
      reservedTokens: 500,
      includeSummaryInContext: true,
      summaryPosition: 'before_retrieval',
    }),
  });

/** Name of the profile used when none is chosen. */
export const DEFAULT_CHAT_PROFILE = 'default';

/**
 * Schema of one custom chat profile (the token and turn fields required, unknown keys
 * rejected). A `summarizationModel` must name one of the engine's `models` (checked when the
 * engine is created). Built on the first call.
 */
export const chatProfileSchema = lazySchema(() =>
  z
    .strictObject({
      /** History tokens above which compaction runs. */
      thresholdTokens: intRange(100, 1_000_000),
      /** Turns of uncovered history above which compaction runs. */
      maxTurns: intRange(2, 10_000),
      /** Most tokens of a summary. */
      summaryTokens: intRange(16, 100_000),
      /** Tokens reserved for conversation memory in the context. */
      reservedTokens: intRange(0, 1_000_000),
      /** The summariser, by name in the engine's `models` (default: the session's model). */
      summarizationModel: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
      /** Put the summary into the model's context (default true). */
      includeSummaryInContext: z._default(z.boolean(), true),
      /** Where the summary goes in the system prompt. */
      summaryPosition: z._default(
        z.enum(['before_retrieval', 'after_retrieval']),
        'before_retrieval',
      ),
    })
    .check(
      z.refine((profile) => profile.summaryTokens < profile.thresholdTokens, {
        message: 'must be below thresholdTokens (a summary must fit under the threshold)',
        path: ['summaryTokens'],
      }),
    ),
);

/**
 * Schema of the `compaction` config section: the engine's default profile and custom
 * profiles (which may also override a built-in one by name). A session may name another
 * profile; unknown names are rejected here and by {@link resolveChatProfile}. Built on the
 * first call.
 */
export const compactionConfigSchema = lazySchema(() =>
  z.prefault(
    z
      .strictObject({
        /** Compact long conversations at all (false: history is only cut to the budget). */
        enabled: z._default(z.boolean(), true),
        /** Profile used by sessions that name none. */
        profile: z._default(z.string().check(z.minLength(1)), DEFAULT_CHAT_PROFILE),
        /** Custom profiles by name. */
        profiles: z._default(z.record(z.string().check(z.minLength(1)), chatProfileSchema()), {}),
      })
      .check(
        z.refine(
          (section) => section.profile in CHAT_PROFILES || section.profile in section.profiles,
          {
            message: 'names no built-in or custom profile',
            path: ['profile'],
          },
        ),
      ),
    {},
  ),
);

/** The `compaction` config section with defaults applied. */
export type CompactionConfig = z.output<ReturnType<typeof compactionConfigSchema>>;

/**
 * The profile named `name` (default: the section's `profile`); custom profiles win over
 * built-in ones of the same name. Throws `ConfigError` for an unknown name.
 */
export function resolveChatProfile(
  config: Pick<CompactionConfig, 'profile' | 'profiles'> | undefined,
  name?: string | undefined,
): ChatProfile {
  const wanted = name ?? config?.profile ?? DEFAULT_CHAT_PROFILE;
  const custom = config?.profiles[wanted];
  if (custom) return custom;
  if (Object.hasOwn(CHAT_PROFILES, wanted)) {
    return CHAT_PROFILES[wanted as keyof typeof CHAT_PROFILES];
  }
  const known = [...Object.keys(CHAT_PROFILES), ...Object.keys(config?.profiles ?? {})];
  throw new ConfigError(`Unknown chat profile '${wanted}' (known: ${known.join(', ')})`, [
    { path: 'compaction.profile', message: `names no profile: '${wanted}'` },
  ]);
}

/** One chat profile as listed by {@link listChatProfiles}. */
export interface ChatProfileEntry {
  /** The name a session or request uses (`chatProfile`). */
  readonly name: string;
  /** Its settings. */
  readonly profile: ChatProfile;
  /** `built-in` (one of `CHAT_PROFILES`) or `custom` (from `compaction.profiles`, which may override a built-in name). */
  readonly origin: 'built-in' | 'custom';
  /** Whether sessions naming no profile use it (`compaction.profile`). */
  readonly isDefault: boolean;
}

/**
 * Every chat profile an engine knows (seed 001's config loader), built-in ones first, then
 * custom ones, by name; a custom profile overriding a built-in name is listed once, as custom.
 * Pass `engine.config.compaction`; without it, the built-in profiles.
 *
 * @example
 * ```ts
 * for (const { name, profile } of listChatProfiles(engine.config.compaction)) console.log(name, profile.maxTurns);
 * ```
 */
export function listChatProfiles(
  config?: Pick<CompactionConfig, 'profile' | 'profiles'> | undefined,
): ChatProfileEntry[] {
  const defaultName = config?.profile ?? DEFAULT_CHAT_PROFILE;
  const custom = config?.profiles ?? {};
  const names = [...Object.keys(CHAT_PROFILES), ...Object.keys(custom)];
  return [...new Set(names)].map((name) => ({
    name,
    profile: resolveChatProfile(config, name),
    origin: Object.hasOwn(custom, name) ? 'custom' : 'built-in',
    isDefault: name === defaultName,
  }));
}
