import { describe, expect, it } from "vitest";
import { substituteVariables } from "../../src/switchboard/config-substitute.js";

const env = { HOME: "/home/me", TOKEN: "t0k", EMPTY: "", PORT: "8080" };

describe("substituteVariables", () => {
  it.each([
    ["plain text", "plain text"],
    ["${HOME}", "/home/me"],
    ["${HOME}/bin:${HOME}/.local", "/home/me/bin:/home/me/.local"],
    ["Bearer ${TOKEN}", "Bearer t0k"],
    ["http://localhost:${PORT:-3000}/mcp", "http://localhost:8080/mcp"],
    ["http://localhost:${NOPE:-3000}/mcp", "http://localhost:3000/mcp"],
    ["${EMPTY}", ""],
    ["${EMPTY:-fallback}", "fallback"],
    ["${NOPE:-}", ""],
    ["${NOPE:-a:-b -c}", "a:-b -c"],
    ["$${HOME}", "${HOME}"],
    // Left to right: "$" is literal, then "$${" is the escape.
    ["$$${HOME}", "$${HOME}"],
    ["cost: $5, $$5, $", "cost: $5, $$5, $"],
    ["$HOME", "$HOME"],
    ["${_UNDER_1}", "u"],
  ])("%j -> %j", (text, value) => {
    expect(substituteVariables(text, { ...env, _UNDER_1: "u" })).toEqual({ ok: true, value });
  });

  it("does not substitute inside a substituted value", () => {
    expect(substituteVariables("${A}", { A: "${B}", B: "no" })).toEqual({ ok: true, value: "${B}" });
  });

  it.each([
    ["${GITHUB_TOKEN}", "environment variable GITHUB_TOKEN is not set (use ${GITHUB_TOKEN:-default} to give a default)"],
    ["x ${HOME} ${MISSING} y", "environment variable MISSING is not set (use ${MISSING:-default} to give a default)"],
    ["abc${HOME", 'unterminated "${" in "abc${HOME" (close it with "}", or write "$${" for a literal "${")'],
    [
      "${input:token}",
      'invalid substitution "${input:token}": expected ${NAME} or ${NAME:-default}, where NAME is letters, digits and _ (write "$${" for a literal "${")',
    ],
    ["${}", 'invalid substitution "${}": expected ${NAME} or ${NAME:-default}, where NAME is letters, digits and _ (write "$${" for a literal "${")'],
    ["${1ABC}", 'invalid substitution "${1ABC}": expected ${NAME} or ${NAME:-default}, where NAME is letters, digits and _ (write "$${" for a literal "${")'],
    ["${A-b}", 'invalid substitution "${A-b}": expected ${NAME} or ${NAME:-default}, where NAME is letters, digits and _ (write "$${" for a literal "${")'],
    [
      "${A:-${B}}",
      'invalid substitution "${A:-${B}": expected ${NAME} or ${NAME:-default}, where NAME is letters, digits and _ (write "$${" for a literal "${")',
    ],
  ])("%j fails: %s", (text, message) => {
    expect(substituteVariables(text, env)).toMatchObject({ ok: false, message });
  });
});
