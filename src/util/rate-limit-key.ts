/**
 * A rate limiter key from its parts (budget, then who: `user` + id, `ip` + address…), encoded
 * so that different parts never give the same key, whatever characters they contain: user
 * `acme` with part `bob:1` and user `acme:bob` with part `1` get different keys. Every limiter
 * caller builds its keys with it (the HTTP handler, the engine).
 *
 * @example
 * rateLimitKey('message', 'user', 'acme:bob'); // '["message","user","acme:bob"]'
 */
export function rateLimitKey(...parts: readonly string[]): string {
  return JSON.stringify(parts);
}
