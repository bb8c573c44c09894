// Pure: what Claude Code's --debug-file log says about each hook it ran. Two shapes were seen in
// 2.1.328:
//   Hooks: UserPromptSubmit [cmd] finished with status 0 (47ms)
//   PreCompact:manual [cmd] completed with status 0           (no duration: PreCompact, PostCompact, SessionEnd)
export interface HookTiming {
  event: string;
  /** The matcher value the client names: startup/resume/compact, the tool, manual/auto, a reason. */
  qualifier?: string;
  command: string;
  status: number;
  /** Milliseconds, when the client reports them. */
  ms?: number;
}

const LINE = /\[DEBUG\] (?:Hooks: )?([A-Za-z]+)(?::([^\s[]+))? \[(.*)\] (?:finished|completed) with status (-?\d+)(?: \((\d+)ms\))?/;

export function parseHookTimings(log: string): HookTiming[] {
  const out: HookTiming[] = [];
  for (const line of log.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    out.push({ event: m[1], ...(m[2] ? { qualifier: m[2] } : {}), command: m[3], status: Number(m[4]), ...(m[5] ? { ms: Number(m[5]) } : {}) });
  }
  return out;
}
