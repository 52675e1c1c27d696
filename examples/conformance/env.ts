/** What the conformance dispatcher hands each scenario function. */
export interface ConformanceEnv {
  url: string;
  scenario: string;
  context: Record<string, unknown> | undefined;
  protocol: "legacy" | "2026-07-28" | string;
}
