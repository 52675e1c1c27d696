/**
 * The fleet's side of the observer's fleet view: a member's summary rides on its heartbeat (link.ts,
 * one round trip per beat, not per call), and any member reads every member with its last summary in
 * one script. A member is alive while its heartbeat's lease lasts; the member list keeps a dead one
 * for a minute (scripts.ts), so an observer shows it gone rather than forgetting it at once.
 */
import type { FleetMemberStatus } from "../switchboard/member-summary.js";
import { LEASE_MS, WATCHED_MS, maskSecrets, type FleetClient, type FleetLink } from "./link.js";

/** Members shown at most: a page of a huge fleet stays a page. */
const MAX_MEMBERS = 200;

/**
 * KEYS: members zset (member -> alive until), watched key. ARGV: status key prefix, max members, how
 * long the read marks the fleet watched (ms; the members count their calls while it is, link.ts).
 * Returns { now, member, alive until, summary or nil, ... }, the most recently alive first.
 */
const READ = `local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
local list = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1, 'WITHSCORES')
local out = {now}
for i = 1, #list, 2 do
  out[#out + 1] = list[i]
  out[#out + 1] = list[i + 1]
  out[#out + 1] = redis.call('GET', ARGV[1] .. list[i])
end
return out
`;

type ReadClient = FleetClient & { sbMembers?(numberOfKeys: number, ...args: Array<string | number>): Promise<Array<string | number | null>> };

/** Sends `summary()` with each heartbeat until the returned function is called; `watched` as in src/switchboard/fleet-seam.ts. */
export function publishStatus(link: FleetLink, summary: () => string, watched?: (on: boolean) => void): () => void {
  link.statusOf = summary;
  link.watchedBy = watched;
  return () => {
    if (link.statusOf !== summary) return;
    link.statusOf = undefined;
    link.watchedBy = undefined;
  };
}

/** Every member in the list with its last summary; rejects, naming the (masked) URL, while Redis is away. */
export async function memberStatuses(link: FleetLink): Promise<FleetMemberStatus[]> {
  const client = link.client as ReadClient | undefined;
  // An empty list would read as "no members": the observer keeps the last one and shows this instead.
  if (client === undefined || !link.healthy) throw new Error(`the fleet's Redis ${link.shown} is away`);
  if (client.sbMembers === undefined) client.defineCommand("sbMembers", { lua: READ });
  let reply: Array<string | number | null>;
  try {
    reply = await client.sbMembers!(2, link.key("members"), link.key("watched"), `${link.key("status")}:`, MAX_MEMBERS, WATCHED_MS);
  } catch (error) {
    link.failed(error);
    throw new Error(`the fleet's Redis ${link.shown}: ${maskSecrets((error as Error).message)}`);
  }
  const now = Number(reply[0]);
  const members: FleetMemberStatus[] = [];
  for (let i = 1; i + 2 < reply.length; i += 3) {
    const aliveUntil = Number(reply[i + 1]);
    const summary = reply[i + 2];
    members.push({
      member: String(reply[i]),
      alive: aliveUntil >= now,
      lastBeatAgoMs: Math.max(0, now - (aliveUntil - LEASE_MS)),
      summary: typeof summary === "string" ? summary : undefined,
    });
  }
  return members;
}
