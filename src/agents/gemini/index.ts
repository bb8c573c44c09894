// Gemini CLI (docs/hooks.md, checked on 0.61.0): hooks in ~/.gemini/settings.json or the project's
// .gemini/settings.json (loaded only in a trusted folder), timeouts in milliseconds; the answer in
// hookSpecificOutput.additionalContext at BeforeAgent only (a part beside the prompt: SessionStart's
// text would be prepended to the prompt, and a resume drops such a turn whole; AfterTool's would
// be appended to the tool's result); token use and compressions from the chat JSONL; PreCompress fires
// before every model call, so the driver takes it as a chance to archive, never as a compaction.
import path from 'node:path';
import { userHome, type AgentAdapter, type AgentConfig } from '../adapter.js';
import { diagnoseGeminiHooks, disabledHooks, geminiCommandPrefix, geminiDir, geminiSettingsFile, installedGeminiHooks, planGeminiInstall, planGeminiUninstall, PROJECT_TRUST_NOTE } from './settings.js';
import { folderTrust } from './trust.js';
import { geminiHook } from './hook.js';

/** What keeps Gemini CLI from running the hooks installed in `file`: hooks turned off, a folder not trusted. */
function problemsOf(scope: string, file: string, json: Record<string, unknown>, related: Record<string, string | undefined>): string[] {
  const problems: string[] = [];
  const disabled = disabledHooks(json);
  if (disabled.all) problems.push(`${file} turns hooks off (hooksConfig.enabled: false): Gemini CLI runs none of wmem's`);
  const off = installedGeminiHooks(json).filter((h) => h.name && disabled.names.includes(h.name)).map((h) => h.name);
  if (off.length) problems.push(`${file} disables ${off.join(', ')} (hooksConfig.disabled)`);
  if (scope === 'project') {
    const [trustFile] = Object.keys(related);
    const project = path.dirname(path.dirname(file));
    const trust = trustFile ? folderTrust(related[trustFile], project) : 'unknown';
    if (trust !== 'trusted') problems.push(`installed, folder not trusted${trust === 'distrusted' ? ' (DO_NOT_TRUST)' : ''}: ${project} per ${trustFile}. ${PROJECT_TRUST_NOTE}`);
  }
  return problems;
}

const config: AgentConfig = {
  scopes: ['user', 'project'],
  // The user's settings work in every folder; a project's only once the folder is trusted.
  defaultScope: 'user',
  file: geminiSettingsFile,
  related: (scope, place) => (scope === 'project' ? [path.join(geminiDir(place.env), 'trustedFolders.json')] : []),
  planInstall: (file, text, request) => planGeminiInstall(file, text, request),
  planUninstall: planGeminiUninstall,
  diagnose: (scope, file, text, related) => diagnoseGeminiHooks(scope, file, text, (json) => problemsOf(scope, file, json, related)),
  commandPrefix: geminiCommandPrefix,
};

export const gemini: AgentAdapter = {
  ...geminiHook,
  config,
  mcp: {
    scopes: ['project', 'user'],
    defaultScope: 'project',
    file: (scope, { cwd, env }) => path.join(scope === 'user' ? userHome(env) : path.resolve(cwd), '.gemini', 'settings.json'),
    shape: { format: 'json', container: 'mcpServers', command: 'split' },
  },
};
