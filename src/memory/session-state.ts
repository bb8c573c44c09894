// Pure: the session state block's text from its two halves, the hot state as rendered
// (memory/hot-state.ts renderHotState) and the recent decisions found among scratch.md's last notes
// (memory/scratch.ts recentDecisions). Apart from both, so that a prompt after a tool call can put
// the block together again from the decisions kept in the render cache (app/context-recall.ts)
// without loading the notes' parser.

export function sessionStateText(hot: string, decisions: string[]): string | undefined {
  const state = [hot, ...(decisions.length ? ['Recent decisions (not yet consolidated):', ...decisions.map((d) => `- ${d}`)] : [])];
  return state.filter(Boolean).join('\n') || undefined;
}
