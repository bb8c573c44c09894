// The summarizer of `--strategy summarize --summarizer CMD`: a shell command that reads the
// readable transcript on stdin and prints the summary; any failure changes nothing.
import { ioError } from '../../ui/errors.js';

/** Runs the summarizer with the transcript on stdin; any failure throws and changes nothing. */
export async function runSummarizer(command: string, transcriptFile: string, timeoutMs: number): Promise<string> {
  const { execa } = await import('execa');
  // Its own process group, so a timeout stops the whole command line (a shell's children too).
  const child = execa(command, { shell: true, inputFile: transcriptFile, reject: false, detached: true, maxBuffer: 16 * 1024 * 1024, stripFinalNewline: false });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  }, timeoutMs);
  const result = await child.finally(() => clearTimeout(timer));
  const hint = 'nothing was changed; fix the command or run without --summarizer for the built-in summary';
  if (timedOut) throw ioError(`summarizer timed out after ${Math.round(timeoutMs / 1000)} s: ${command}`, undefined, hint);
  if (result.exitCode !== 0 || result.failed) {
    const why = result.exitCode !== undefined ? `exited with ${result.exitCode}` : result.signal ? `was killed by ${result.signal}` : 'failed';
    const stderr = String(result.stderr ?? '').trim().split('\n').pop();
    throw ioError(`summarizer ${why}: ${command}${stderr ? ` (${stderr.slice(0, 200)})` : ''}`, undefined, hint);
  }
  const summary = String(result.stdout ?? '').trim();
  if (!summary) throw ioError(`summarizer printed nothing: ${command}`, undefined, hint);
  return summary + '\n';
}
