import { defineConfig } from "vitest/config";

// Browser end-to-end tests: Playwright (playwright-core) driving the system Chromium against a live app
// started by scripts/test-run.ts. Sequential: one browser at a time on a 2-core machine.
export default defineConfig({
  test: {
    include: ["tests/browser/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    // The page polls the API while workers train beside it: give a poll 10 s rather than vitest's 1 s by default.
    expect: { poll: { timeout: 10_000 } },
  },
});
