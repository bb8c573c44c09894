// Which test files run in which tier, named once. `npm run test:unit` runs the unit and property
// tests from source, without a build, in seconds: the developer's inner loop. `npm test` builds and
// adds the end-to-end tests of the built CLI, except the slow ones here: kill loops, scale tests
// (100,000-line histories, 200,000 notes, 50,000 team entries) and the tests that start hundreds
// of processes or whole compactions per generated case, which `npm run test:slow` runs and CI
// (.ci/run) runs after the main suite, so every test still runs once per CI run.
export const UNIT = ['test/{unit,property}/**/*.test.ts'];

export const SLOW = [
  // Hundreds of processes each (git, an appending writer) or whole compactions per generated case.
  'test/unit/team-merge.test.ts',
  'test/unit/compact-appends.test.ts',
  'test/property/history-compact.test.ts',
  'test/property/compact-steps.property.test.ts',
  // Kill loops and scale tests of the built CLI.
  'test/e2e/compact-kill.test.ts',
  'test/e2e/compact-quick.test.ts',
  'test/e2e/consolidate-scale.test.ts',
  'test/e2e/migrate-kill.test.ts',
  'test/e2e/report-scale.test.ts',
  'test/e2e/team-scale.test.ts',
];
