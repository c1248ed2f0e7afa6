/**
 * Which model answers the `cortexis` command: the provider the flags or the environment
 * variables name, or the offline extractive model, and the `Model:` line that says why.
 */
import { ConfigError } from '../errors/index.js';
import { providerFromEnv, type EnvironmentProvider } from '../adapters/providers/index.js';
import type { ProviderName } from './args.js';
import type { Env } from './io.js';

/**
 * The model the flags or the environment name; null for the offline extractive model. The
 * CLI is the one place in cortexis that detects a provider from environment variables (the
 * library leaves that to its caller); it prints which one it uses and why.
 */
export function chooseProvider(
  env: Env,
  provider: ProviderName | undefined,
  model: string | undefined,
): EnvironmentProvider | null {
  if (provider === 'extractive') {
    if (model !== undefined) throw modelWithoutProvider();
    return null;
  }
  const bundle = providerFromEnv(env, { type: provider, model });
  if (bundle === null && model !== undefined) throw modelWithoutProvider();
  return bundle;
}

/** The `Model:` line: what answers, and why (a flag or the variables that chose it). */
export function describeModel(
  provider: EnvironmentProvider | null,
  flag: ProviderName | undefined,
): string {
  if (provider === null) {
    return flag === 'extractive'
      ? 'extractive (offline; --provider extractive)'
      : 'extractive (offline, no API key needed; no provider variable is set)';
  }
  return `${provider.description}; ${flag ? `--provider ${flag}` : provider.reason}`;
}

function modelWithoutProvider(): ConfigError {
  return new ConfigError(`--model needs a provider: the offline extractive model has one model`, [
    { path: 'model', message: 'needs --provider or a provider key in the environment' },
  ]);
}
