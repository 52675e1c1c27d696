/**
 * Which URLs the client may fetch: an answer to server-side request forgery through MCP. A server's URL,
 * its redirects, its legacy SSE endpoint and its OAuth metadata can all point the client anywhere,
 * including the cloud metadata service or an internal admin API. Every such URL is checked after DNS
 * resolution (a name that resolves to a private address is caught) and before any connection.
 *
 * Rules, in order: `denyHosts` (a host name or address, "*.example.com" patterns) refuses; with
 * `allowHosts`, any other host is refused; link-local and cloud metadata addresses are always refused;
 * loopback is allowed unless `allowLoopback: false`; private ranges are allowed for URLs the user
 * configured and refused for URLs that came from a server (redirects, metadata) unless `allowPrivate`.
 *
 * Two ways in: `check(url, origin)` resolves the name and refuses (one call per place a URL comes from),
 * and `lookup`, a DNS lookup for the connection itself (node:http's `lookup` agent option, undici's
 * `connect: { lookup }`), so the address checked is the address connected to: no rebinding gap between
 * the check and the connection. The OAuth requests (`guardFetch`) go through an undici Agent whose
 * lookup is that one, with the rules of the URL's origin.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from "node:dns";
import { isIP } from "node:net";
import { Agent, fetch as undiciFetch } from "undici";
import { ConfigError, TransportError } from "../jsonrpc/errors.js";

export interface UrlPolicyOptions {
  /** Only these hosts (names or addresses; "*.example.com" matches subdomains). Unset: any host. */
  allowHosts?: string[] | undefined;
  /** Never these hosts (same patterns; a pattern may also name an address the host resolves to). */
  denyHosts?: string[] | undefined;
  /** Private ranges for URLs that came from a server (redirects, metadata). Default false. */
  allowPrivate?: boolean | undefined;
  /** Loopback addresses (127.0.0.0/8, ::1). Default true: local servers are normal. */
  allowLoopback?: boolean | undefined;
}

/** Where a URL came from: the user's configuration, or a server (a redirect, metadata, an endpoint event). */
export type UrlOrigin = "config" | "server";

export type AddressClass = "loopback" | "private" | "link-local" | "metadata" | "unspecified" | "public";

/** Resolves when `url` may be fetched; rejects with a ConfigError ("config") or TransportError ("server"). */
export type UrlCheck = (url: URL, origin: UrlOrigin) => Promise<void>;

export type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
/** The shape node:net and undici call a `lookup` with. */
export type LookupFunction = (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback) => void;

/** Every address of a name (node:dns `lookup` with `all: true`); tests give their own to play a rebinding DNS. */
export type AddressResolver = (hostname: string, callback: (error: NodeJS.ErrnoException | null, found: LookupAddress[]) => void) => void;

const systemResolver: AddressResolver = (hostname, callback) => dnsLookup(hostname, { all: true }, callback);

const METADATA = new Set(["169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254"]);
const METADATA_NAMES = new Set(["metadata.google.internal", "metadata.goog", "metadata"]);

function ipv4Parts(address: string): number[] | undefined {
  if (isIP(address) !== 4) return undefined;
  return address.split(".").map(Number);
}

/** The class of an IP address (IPv4-mapped IPv6 addresses as their IPv4 address). */
export function classifyAddress(address: string): AddressClass {
  const lower = address.toLowerCase().replace(/^\[|\]$/g, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower)?.[1];
  if (mapped !== undefined) return classifyAddress(mapped);
  if (METADATA.has(lower)) return "metadata";
  const v4 = ipv4Parts(lower);
  if (v4 !== undefined) {
    const [a = 0, b = 0] = v4;
    if (a === 127) return "loopback";
    if (a === 0) return "unspecified";
    if (a === 169 && b === 254) return "link-local";
    if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)) return "private";
    return "public";
  }
  if (isIP(lower) !== 6) return "public";
  if (lower === "::1") return "loopback";
  if (lower === "::") return "unspecified";
  if (/^fe[89ab]/.test(lower)) return "link-local";
  if (/^f[cd]/.test(lower)) return "private";
  return "public";
}

function matchesHost(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase().replace(/^\[|\]$/g, "");
  if (p.startsWith("*.")) return host.endsWith(p.slice(1));
  return p === host;
}

/** Checks the option's shape: a ConfigError naming the field for anything else. */
export function checkUrlPolicyOptions(value: unknown, field = "urlPolicy"): UrlPolicyOptions {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ConfigError(`expected { allowHosts?, denyHosts?, allowPrivate?, allowLoopback? }, found ${JSON.stringify(value)}`, { field });
  }
  const options = value as Record<string, unknown>;
  for (const key of Object.keys(options)) {
    if (!["allowHosts", "denyHosts", "allowPrivate", "allowLoopback"].includes(key)) throw new ConfigError(`unknown field`, { field: `${field}.${key}` });
  }
  for (const key of ["allowHosts", "denyHosts"]) {
    const list = options[key];
    if (list !== undefined && !(Array.isArray(list) && list.every((host) => typeof host === "string" && host !== ""))) {
      throw new ConfigError(`expected an array of host names or addresses, found ${JSON.stringify(list)}`, { field: `${field}.${key}` });
    }
  }
  for (const key of ["allowPrivate", "allowLoopback"]) {
    if (options[key] !== undefined && typeof options[key] !== "boolean") {
      throw new ConfigError(`expected true or false, found ${JSON.stringify(options[key])}`, { field: `${field}.${key}` });
    }
  }
  return options;
}

export class UrlPolicy {
  private readonly options: UrlPolicyOptions;
  /** The OAuth requests' agents by origin, made on first use (see guardFetch). */
  private agents: Partial<Record<UrlOrigin, Agent>> = {};

  constructor(
    options: UrlPolicyOptions = {},
    private readonly resolver: AddressResolver = systemResolver,
  ) {
    this.options = checkUrlPolicyOptions(options);
  }

  /** The rule that refuses `host` (as written) at `address` (resolved), or undefined when it may go. */
  refusal(host: string, address: string | undefined, origin: UrlOrigin): string | undefined {
    const name = host.toLowerCase().replace(/^\[|\]$/g, "");
    const { allowHosts, denyHosts } = this.options;
    if (denyHosts?.some((pattern) => matchesHost(pattern, name) || (address !== undefined && matchesHost(pattern, address)))) return "denyHosts";
    if (allowHosts !== undefined && !allowHosts.some((pattern) => matchesHost(pattern, name))) return "allowHosts";
    if (METADATA_NAMES.has(name)) return "cloud metadata addresses are always refused";
    const kind = classifyAddress(address ?? name);
    if (kind === "metadata") return "cloud metadata addresses are always refused";
    if (kind === "link-local") return "link-local addresses are always refused";
    if (kind === "unspecified") return "unspecified addresses (0.0.0.0, ::) are always refused";
    if (kind === "loopback" && this.options.allowLoopback === false) return "allowLoopback is false";
    if (kind === "private" && origin === "server" && this.options.allowPrivate !== true) {
      return "a private address that came from a server (set allowPrivate to allow)";
    }
    return undefined;
  }

  /** Resolves the URL's host and refuses it, or any address it resolves to, by the rules above. */
  readonly check: UrlCheck = async (url, origin) => {
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const addresses = isIP(host) !== 0 ? [host] : await this.resolve(url, host, origin);
    for (const address of addresses) {
      const rule = this.refusal(host, address, origin);
      if (rule !== undefined) throw refused(url, address, rule, origin);
    }
  };

  /** A DNS lookup that refuses what the rules refuse: the connection's own (see the top of this file). */
  readonly lookup: LookupFunction = (hostname, options, callback) => this.lookupAs("config", hostname, options, callback);

  /** An undici Agent whose connections resolve names through this policy, with the rules of `origin`. */
  agentFor(origin: UrlOrigin): Agent {
    return (this.agents[origin] ??= new Agent({ connect: { lookup: (hostname, options, callback) => this.lookupAs(origin, hostname, options, callback) } }));
  }

  /** Closes the agents made by agentFor (their idle sockets). */
  async close(): Promise<void> {
    const agents = Object.values(this.agents);
    this.agents = {};
    await Promise.all(agents.map((agent) => agent.close()));
  }

  private lookupAs(origin: UrlOrigin, hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void {
    this.resolver(hostname, (error, found) => {
      if (error) return callback(error, []);
      for (const { address } of found) {
        const rule = this.refusal(hostname, address, origin);
        if (rule !== undefined) {
          const refusal = new Error(`${hostname} resolves to ${address}, refused by the URL policy (${rule})`) as NodeJS.ErrnoException;
          refusal.code = "EURLPOLICY";
          return callback(refusal, []);
        }
      }
      if ((options as LookupAllOptions).all === true) return callback(null, found);
      const first = found[0]!;
      callback(null, first.address, first.family);
    });
  }

  private async resolve(url: URL, host: string, origin: UrlOrigin): Promise<string[]> {
    // The name's own rules first: a denied or unlisted name is refused without asking DNS.
    const rule = this.refusal(host, undefined, origin);
    if (rule !== undefined) throw refused(url, undefined, rule, origin);
    return new Promise((resolve, reject) =>
      this.resolver(host, (error, found) => {
        if (error)
          reject(new TransportError(`${url.href}: cannot resolve ${host} (${error.code ?? error.message})`, { url: url.href, delivered: false, cause: error }));
        else resolve(found.map((entry) => entry.address));
      }),
    );
  }
}

function refused(url: URL, address: string | undefined, rule: string, origin: UrlOrigin): Error {
  const at = address !== undefined && address !== url.hostname.replace(/^\[|\]$/g, "") ? ` (${address})` : "";
  const message = `${url.href}${at} is refused by the URL policy: ${rule}`;
  return origin === "config"
    ? new ConfigError(message, { field: `urlPolicy${rule === "denyHosts" || rule === "allowHosts" ? `.${rule}` : ""}` })
    : new TransportError(message, { url: url.href, delivered: false, retryable: false });
}

type Fetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * `fetch` (the caller's, else the global one) behind a URL policy, for the OAuth requests: a URL on an
 * origin the user configured counts as "config", any other (metadata, the authorization server's
 * endpoints) as "server". The policy is read at each call: the transport hands it over after the
 * provider was made. Without a `fetch` of the caller's, the request goes through the policy's agent
 * (agentFor), whose DNS lookup applies the same rules: the address checked is the one connected to, not
 * a second answer of a rebinding DNS. A caller's own `fetch` resolves names its own way.
 */
export function guardFetch(base: Fetch | undefined, policy: () => UrlPolicy | undefined, configured: (url: URL) => boolean): Fetch {
  return async (input, init) => {
    const current = policy();
    if (current === undefined) return (base ?? fetch)(input, init);
    const url = new URL(String(input));
    const origin = configured(url) ? "config" : "server";
    await current.check(url, origin);
    if (base !== undefined) return base(input, init);
    const sent = { ...init, dispatcher: current.agentFor(origin) } as Parameters<typeof undiciFetch>[1];
    return await undiciFetch(url, sent);
  };
}
