/**
 * The skills extension scenarios (SEP-2640), through the library's skills API: a host lists the
 * server's skills without fetching any file, and when it loads one, every byte is checked against the
 * entry before use. The scenario servers tamper with SKILL.md (digest, byte length, frontmatter); the
 * host must refuse it and so never go on to the skill's supporting file.
 */
import { listSkills, loadSkill, SkillVerificationError, type McpClient, type SkillVerificationReason } from "../../src/index.js";
import { clientOptions, print, withClient } from "./client.js";
import type { Scenario } from "./env.js";

/** What a host does with a skill it was asked to use: load it, then read the reference its task needs. */
async function useSkill(client: McpClient, name: string): Promise<void> {
  const skill = (await listSkills(client)).find((entry) => entry.frontmatter.name === name);
  if (!skill) throw new Error(`the server lists no skill named ${name}`);
  const loaded = await loadSkill(client, skill);
  print("loaded", { uri: loaded.uri, frontmatter: loaded.frontmatter });
  const forms = await loaded.readFile("references/FORMS.md");
  print("read", { uri: forms.uri, bytes: forms.bytes.byteLength });
}

/** A scenario whose server serves a tampered SKILL.md: passing means refusing it for `reason`. */
function refuses(reason: SkillVerificationReason): Scenario {
  return (env) =>
    withClient(env, clientOptions(env), async (client) => {
      try {
        await useSkill(client, "pdf-processing");
      } catch (error) {
        if (error instanceof SkillVerificationError && error.reason === reason) {
          print("refused", { reason: error.reason, message: error.message });
          return;
        }
        throw error;
      }
      throw new Error(`the skill loaded although its SKILL.md fails ${reason} verification`);
    });
}

export const skillScenarios: Record<string, Scenario> = {
  // Listing builds the host's catalog from the entries alone: no file is fetched until a skill is used.
  "sep-2640-client-no-prefetch": (env) =>
    withClient(env, clientOptions(env), async (client) => {
      for (const skill of await listSkills(client)) print(skill.uri, skill.frontmatter);
    }),
  "sep-2640-client-verify-digest": refuses("digest"),
  "sep-2640-client-verify-size": refuses("size"),
  "sep-2640-client-verify-frontmatter": refuses("frontmatter"),
};
