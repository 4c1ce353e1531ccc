import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "bench/test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // The default output, then one plain closing line: `N passed, N failed, N skipped`.
    reporters: ["default", "./scripts/summary-reporter.ts"],
    // Fails the run if a fake MCP server process outlives the tests (see packages/testing/README.md).
    globalSetup: ["packages/testing/test/leakGuard.globalSetup.ts"]
  }
})
