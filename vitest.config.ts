import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: files run in forks, a couple at a time, so real servers get CPU.
    pool: "forks",
    maxWorkers: 2,
  },
});
