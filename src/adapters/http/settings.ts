/**
 * Checks shared by the HTTP provider adapters' settings: invalid settings throw a
 * `ConfigError` naming the setting, when the factory is called rather than on the first
 * request.
 * @module
 */
import { ConfigError } from '../../errors/index.js';
import { trimTrailing } from '../../util/trim-trailing.js';

/** A `ConfigError` for one invalid setting of a provider adapter. */
export function invalidSetting(provider: string, path: string, message: string): ConfigError {
  return new ConfigError(`Invalid ${provider} settings: ${path} ${message}`, [{ path, message }]);
}

/** Throws unless `value` is undefined or a positive integer. */
export function checkPositiveInteger(provider: string, path: string, value: unknown): void {
  if (value !== undefined && !(Number.isInteger(value) && (value as number) > 0)) {
    throw invalidSetting(provider, path, 'must be a positive integer');
  }
}

/** Throws unless `value` is undefined or a nucleus-sampling `topP` in (0, 1]. */
export function checkTopP(provider: string, path: string, value: unknown): void {
  if (value !== undefined && !(typeof value === 'number' && value > 0 && value <= 1)) {
    throw invalidSetting(provider, path, 'must be a number in (0, 1]');
  }
}

/** Throws unless `value` is a non-empty string. */
export function checkNonEmpty(provider: string, path: string, value: unknown): void {
  if (typeof value !== 'string' || value.trim() === '') {
    throw invalidSetting(provider, path, 'must be a non-empty string');
  }
}

/** Throws unless `value` is an absolute http(s) URL; returns it without trailing slashes. */
export function checkBaseURL(provider: string, path: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidSetting(provider, path, `must be an absolute URL, got '${value}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidSetting(provider, path, `must be an http(s) URL, got '${value}'`);
  }
  return trimTrailing(value, '/');
}
