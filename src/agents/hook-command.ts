// Pure: the command line an installed hook runs (`<how to run wmem> hook --agent ID EVENT
// [--tokens-max N]`), for the agents whose config lists hooks as shell commands: how to write
// one, how to recognise wmem's own among the user's, and what runs wmem in it.

export interface HookCommandRule {
  /** `<prefix> hook --agent ID EVENT [--tokens-max N]`. */
  command(prefix: string, event: string, tokensMax?: number): string;
  /** Whether a config entry's command is one wmem installed for this agent. */
  isWmem(command: unknown): boolean;
  /** What runs wmem in an installed command, without `hook --agent ID EVENT …`. */
  prefixOf(command: string): string;
}

/** `agentId` undefined: Claude Code's, the default agent, whose commands carry no `--agent`. */
export function hookCommandRule(agentId?: string): HookCommandRule {
  const agent = agentId ? String.raw`--agent[= ]${agentId}\s+` : '';
  const tail = String.raw`\s+hook\s+${agent}[A-Za-z]+(?:\s+--tokens-max[= ]\d+)?\s*$`;
  const wmemCommand = new RegExp(String.raw`(?:^|[\s'"/\\])wmem(?:\.js)?['"]?(?:\s+\S+)*?` + tail);
  const tailPattern = new RegExp(tail);
  return {
    command: (prefix, event, tokensMax) => `${prefix} hook ${agentId ? `--agent ${agentId} ` : ''}${event}${tokensMax ? ` --tokens-max ${tokensMax}` : ''}`,
    isWmem: (command) => typeof command === 'string' && wmemCommand.test(command),
    prefixOf: (command) => command.replace(tailPattern, ''),
  };
}
