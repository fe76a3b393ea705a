import { defineConfig } from "vitest/config";

// Two projects: `unit` (tests/unit: no Postgres, no Redis, no network beyond loopback fakes; seconds) and
// `integration` (real Postgres + Redis + HTTP, sharing one throwaway database and Redis prefix per `npm test`
// run: see scripts/test-run.ts, which starts neither for a unit-only run). `npm test -- --project unit`.
export default defineConfig({
  test: {
    exclude: ["tests/browser/**", "node_modules/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    fileParallelism: true,
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: "unit", include: ["tests/unit/**/*.test.ts"] } },
      {
        extends: true,
        test: { name: "integration", include: ["tests/{integration,fuzz,faults}/**/*.test.ts"] },
      },
    ],
  },
});
