/**
 * `WWW-Authenticate` (RFC 9110 §11.6.1): one or more challenges, each an auth-scheme followed by a
 * token68 or by comma-separated `name=value` parameters, where a value is a token or a quoted string.
 * Commas separate both parameters and challenges, so a new challenge starts where a token is not
 * followed by "=". Malformed input never throws: what parses is kept, the rest is skipped.
 */

export interface Challenge {
  /** Lower case (`bearer`, `dpop`). */
  scheme: string;
  /** Parameter names in lower case; values unquoted. */
  params: Record<string, string>;
  token68?: string;
}

const TCHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;

export function parseWwwAuthenticate(header: string | undefined): Challenge[] {
  if (header === undefined) return [];
  const challenges: Challenge[] = [];
  let at = 0;
  const n = header.length;
  const skipSpaces = () => {
    while (at < n && (header[at] === " " || header[at] === "\t")) at++;
  };
  const readToken = (): string => {
    const start = at;
    while (at < n && TCHAR.test(header.charAt(at))) at++;
    return header.slice(start, at);
  };
  const readQuoted = (): string => {
    at++; // opening quote
    let out = "";
    while (at < n && header[at] !== '"') {
      if (header[at] === "\\" && at + 1 < n) at++;
      out += header[at++];
    }
    at++; // closing quote (or past the end)
    return out;
  };
  while (at < n) {
    skipSpaces();
    if (header[at] === ",") {
      at++;
      continue;
    }
    const scheme = readToken();
    if (scheme === "") {
      at++; // a character no challenge can start with
      continue;
    }
    const challenge: Challenge = { scheme: scheme.toLowerCase(), params: Object.create(null) as Record<string, string> };
    challenges.push(challenge);
    skipSpaces();
    // token68: a run of token68 characters ending the challenge (then "," or the end), with optional "=" padding.
    const token68 = /^[A-Za-z0-9\-._~+/]+=*\s*(?:,|$)/.exec(header.slice(at));
    if (token68) {
      challenge.token68 = token68[0].replace(/[\s,]+$/, "");
      at += token68[0].length;
      continue;
    }
    // auth-params until a token that is not followed by "=" (the next challenge's scheme).
    for (;;) {
      skipSpaces();
      while (at < n && header[at] === ",") {
        at++;
        skipSpaces();
      }
      const mark = at;
      const name = readToken();
      if (name === "") break;
      skipSpaces();
      if (header[at] !== "=") {
        at = mark; // a new challenge begins here
        break;
      }
      at++;
      skipSpaces();
      const value = header[at] === '"' ? readQuoted() : readToken();
      challenge.params[name.toLowerCase()] = value;
    }
  }
  return challenges;
}

/** The challenge an OAuth client acts on: Bearer or DPoP (preferring one that names an error). */
export function oauthChallenge(challenges: readonly Challenge[]): Challenge | undefined {
  const oauth = challenges.filter((c) => c.scheme === "bearer" || c.scheme === "dpop");
  return oauth.find((c) => c.params.error !== undefined) ?? oauth[0];
}
