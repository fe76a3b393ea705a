import { defineConfig } from "vitest/config";

// Integration tests share one throwaway database and Redis prefix per `npm test` run (see scripts/test.mjs).
export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    exclude: ["tests/browser/**", "node_modules/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    fileParallelism: true,
    maxWorkers: 2,
  },
});
