/** The Redis URL of a fleet: checked before anything connects, and shown only with its password masked. */
import { ConfigError } from "../jsonrpc/errors.js";

const SCHEMES = new Set(["redis:", "rediss:", "unix:"]);

/** The URL as messages show it: user kept, password replaced by `***`. */
export function maskedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.href;
  } catch {
    return "(an unparsable URL)";
  }
}

/** A `ConfigError` naming the (masked) URL for anything that is not redis://, rediss:// or unix:/path. */
export function checkRedisUrl(url: unknown): string {
  if (typeof url !== "string" || url.trim() === "") {
    throw new ConfigError(`expected a Redis URL (redis://host:port), found ${typeof url === "string" ? "an empty string" : typeof url}`, {
      field: "fleet.redis",
    });
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`${maskedUrl(url)} is not a URL: expected redis://[user:password@]host[:port][/db], rediss://... or unix:/path/to/redis.sock`, {
      field: "fleet.redis",
    });
  }
  if (!SCHEMES.has(parsed.protocol)) {
    throw new ConfigError(`${maskedUrl(url)}: expected a redis:, rediss: or unix: URL, found ${parsed.protocol}`, { field: "fleet.redis" });
  }
  if (parsed.protocol !== "unix:" && parsed.hostname === "") throw new ConfigError(`${maskedUrl(url)}: the URL names no host`, { field: "fleet.redis" });
  if (parsed.protocol !== "unix:" && parsed.pathname.length > 1 && !/^\/\d+$/.test(parsed.pathname)) {
    throw new ConfigError(`${maskedUrl(url)}: the path must be a database number (/0, /1, ...)`, { field: "fleet.redis" });
  }
  return url;
}
