// What bin/wmem.js says when its build is missing: dist/ not built yet, removed by a build under
// way, or copied in part. Loaded only then (bin/wmem.js's last catch). CommonJS, Node built-ins only.
'use strict';

/**
 * Whether `err` says a file of the build is missing: dist/ not built yet, removed by a build under
 * way, or copied in part (every entry and bundle is under dist/, and what they load beside them).
 */
function missingBuild(err) {
  return Boolean(err && (err.code === 'MODULE_NOT_FOUND' || err.code === 'ERR_MODULE_NOT_FOUND') && /\bdist[\\/]/.test(String(err.message)));
}

/** The command's name: the first word past the global options (`wmem --home H hook …`). */
function commandWord(args) {
  for (let i = 0; i < args.length; i++) {
    if (!args[i].startsWith('-')) return args[i];
    if (['--home', '--cwd', '--session', '--agent'].includes(args[i])) i++;
  }
  return undefined;
}

/**
 * A hook without its build: silence and exit 0 (a hook never breaks the agent, SPEC §10), and a
 * line in <home>/logs/hooks.log when that folder is there as a folder (the log's own rules:
 * src/agents/hook-log.ts; nothing is created without the build that knows the home's layout).
 */
function logMissingBuild(args, message) {
  try {
    const fs = require('node:fs');
    const path = require('node:path');
    const at = args.findIndex((a) => a === '--home' || a.startsWith('--home='));
    const flag = at < 0 ? undefined : args[at].startsWith('--home=') ? args[at].slice(7) : args[at + 1];
    const raw = flag || process.env.WMEM_HOME || path.join(require('node:os').homedir(), '.ai');
    const logs = path.join(path.resolve(raw.replace(/^~(?=\/|$)/, require('node:os').homedir())), 'logs');
    if (!fs.lstatSync(logs).isDirectory()) return;
    const fd = fs.openSync(path.join(logs, 'hooks.log'), fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK, 0o600);
    try {
      fs.writeSync(fd, `${new Date().toISOString()} hook error: ${message.replace(/\s*\n\s*/g, ' | ')}\n`);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    /* best effort, as every hook log line */
  }
}

/**
 * Reports `err` when it says the build is missing, and returns true; false for any other error.
 * A command: one line on stderr saying what to do, exit code 1. A hook: nothing, exit 0, logged.
 */
function reportMissingBuild(err, args) {
  if (!missingBuild(err)) return false;
  const root = require('node:path').resolve(__dirname, '..');
  const message = `wmem is not built: ${String(err.message).split('\n')[0]}. Run \`npm run build\` in ${root} (a checkout), or reinstall wmem (npm install -g)`;
  if (commandWord(args) === 'hook') logMissingBuild(args, message);
  else {
    process.stderr.write(`wmem: ${message}\n`);
    process.exitCode = 1;
  }
  return true;
}

module.exports = { reportMissingBuild };
