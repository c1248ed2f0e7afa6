/**
 * Resolving the engine's configuration: `config` validated against `engineConfigSchema`
 * (`src/config.ts`) with every default applied, a removed key reported with what replaces it,
 * and each compaction profile's summariser checked against the engine's `models`.
 */
import { lazyEngineConfigSchema, type EngineConfig, type ResolvedConfig } from '../config.js';
import { ConfigError } from '../errors/index.js';
import { describeIssues, safeParse } from '../util/schema.js';

/**
 * Keys that were removed, with what replaces them: reported instead of "unknown key" so an
 * upgrade fails with a pointer rather than silently changing behaviour.
 */
const REMOVED_KEYS: ReadonlyMap<string, string> = new Map([
  [
    'providerFromEnvironment',
    "was removed: the engine never reads the environment. Pass llm, e.g. llm: providerFromEnv(process.env)?.llm or createProvider({...}).llm from 'cortexis/providers'",
  ],
]);

/** Validates the configuration and applies defaults; throws `ConfigError` naming each bad field. */
export function resolveConfig(config: EngineConfig | undefined): ResolvedConfig {
  const parsed = safeParse(lazyEngineConfigSchema(), config ?? {});
  if (!parsed.success) {
    const issues = parsed.issues.map((issue) => {
      const removed = issue.message === 'unknown key' ? REMOVED_KEYS.get(issue.path) : undefined;
      return removed === undefined ? issue : { ...issue, message: removed };
    });
    throw new ConfigError(`Invalid cortexis config: ${describeIssues(issues)}`, issues);
  }
  // A profile's summariser is a model of the engine (`models`), known when the engine starts.
  const models = Object.keys(parsed.data.models ?? {});
  const unknownSummarizers = Object.entries(parsed.data.compaction.profiles)
    .filter(([, profile]) => {
      const name = profile.summarizationModel;
      return name !== undefined && !models.includes(name);
    })
    .map(([name]) => ({
      path: `compaction.profiles.${name}.summarizationModel`,
      message: `names no model of the engine (known: ${models.join(', ') || 'none; pass config.models'})`,
    }));
  if (unknownSummarizers.length > 0) {
    throw new ConfigError(
      `Invalid cortexis config: ${describeIssues(unknownSummarizers)}`,
      unknownSummarizers,
    );
  }
  return parsed.data;
}
