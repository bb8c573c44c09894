// The reporters of every suite: the default one, plus vitest's JSON report when WMEM_TEST_REPORT
// names a file (.ci/run reads the pass/fail counts from it, so they come from the runner itself).
type Reporter = string | [string, Record<string, unknown>];

export function reporters(): Reporter[] {
  const out = process.env.WMEM_TEST_REPORT;
  return out ? ['default', ['json', { outputFile: out }]] : ['default'];
}
