// Colour is decided once: --no-color > NO_COLOR > FORCE_COLOR > whether stdout is a terminal.
// chalk's own detection ignores NO_COLOR, so we pass it an explicit level.

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

export function wantsColor(flagNoColor: boolean, env: NodeJS.ProcessEnv, isTTY: boolean): boolean {
  if (flagNoColor) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return isTTY;
}

const plain = (text: string) => text;
export const PLAIN_STYLE: Style = { bold: plain, dim: plain, red: plain, green: plain, yellow: plain, cyan: plain };

export async function makeStyle(color: boolean): Promise<Style> {
  if (!color) return PLAIN_STYLE;
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  return { bold: chalk.bold, dim: chalk.dim, red: chalk.red, green: chalk.green, yellow: chalk.yellow, cyan: chalk.cyan };
}
