// Sums vitest JSON reports into the one summary line CI prints: "N passed, N failed".
import { existsSync, readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
for (const file of process.argv.slice(2)) {
  if (!existsSync(file)) {
    // The run died before reporting (a crash or a config error): count it as a failure.
    console.error(`no vitest report at ${file}`);
    failed += 1;
    continue;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  // A test file that fails to load has no test results but is a failure all the same.
  for (const result of report.testResults ?? []) {
    if (result.status === 'failed' && (result.assertionResults ?? []).length === 0) failed += 1;
  }
}
console.log(`${passed} passed, ${failed} failed`);
