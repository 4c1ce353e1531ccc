/**
 * A vitest reporter that ends the run with one plain line, `N passed, N failed, N skipped`, so that CI logs
 * state the count of tests run in a form any tool can read. A test file that failed to load counts as failed.
 */
import type { Reporter, TestModule } from "vitest/node"

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0
    let failed = 0
    let skipped = 0
    for (const module of testModules) {
      let tests = 0
      for (const test of module.children.allTests()) {
        tests++
        const state = test.result().state
        if (state === "passed") passed++
        else if (state === "failed") failed++
        else skipped++
      }
      if (tests === 0 && !module.ok()) failed++
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`)
  }
}
