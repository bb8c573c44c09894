// What bin/wmem.js says when its build is missing: dist/ not built yet, removed by a build under
// way, or copied in part. Loaded only then (bin/wmem.js's last catch). CommonJS, Node built-ins only.
'use strict';

/**
 * Whether `err` says a file of the build is missing: dist/ not built yet, removed by a build under
 * way, or copied in part (every entry and bundle is under dist/, and what they load beside them).
 */
function missingBuild(err) {
  // The module not found is the first line ("Cannot find module '<path>'"); the require stack
  // after it names dist/ whenever a bundle asked for a package that is missing (npm install's).
  const missing = String(err?.message).split('\n')[0];
  return Boolean(err && (err.code === 'MODULE_NOT_FOUND' || err.code === 'ERR_MODULE_NOT_FOUND') && /\bdist[\\/]/.test(missing));
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
    const log = path.join(logs, 'hooks.log');
    // Past 1 MiB the log moves to hooks.log.1 first, as hook-log.ts's MAX_LOG_BYTES has it.
    if ((fs.lstatSync(log, { throwIfNoEntry: false })?.size ?? 0) > 1024 * 1024) fs.renameSync(log, `${log}.1`);
    const fd = fs.openSync(log, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK, 0o600);
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
 * Reads a hook's input to its end, as the built hook does, so that the agent never writes into a
 * closed pipe (EPIPE). Not from a terminal (a person trying the command), and never past an error.
 */
function drainStdin() {
  try {
    const fs = require('node:fs');
    if (require('node:tty').isatty(0)) return;
    const buffer = Buffer.alloc(64 * 1024);
    while (fs.readSync(0, buffer, 0, buffer.length, null) > 0);
  } catch {
    /* nothing more to read (EAGAIN on a non-blocking input, EOF, a closed descriptor) */
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
  if (commandWord(args) === 'hook') {
    drainStdin();
    logMissingBuild(args, message);
  } else {
    process.stderr.write(`wmem: ${message}\n`);
    process.exitCode = 1;
  }
  return true;
}

module.exports = { reportMissingBuild };
