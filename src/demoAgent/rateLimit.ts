/**
 * The demo agent's `ratelimit` step, so that tests can drive quota pauses with a real process: the
 * first time a folder's run reaches it, the agent prints a usage-limit message as Claude Code does
 * and exits 1, keeping the rest of its task as a "session" of that folder (like a CLI's
 * conversation). The next run there whose prompt has no command (a follow-up such as the resume
 * the extension sends) runs that rest; a run that reaches the step again with its session saved
 * passes it by.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

function sessionFile(root: string): string {
  const key = createHash('sha1').update(root).digest('hex').slice(0, 16);
  return path.join(os.tmpdir(), 'parallel-agents-demo', `${key}.session`);
}

/** The rest of the task a stop on the limit kept for this folder, if any (and forgets it). */
export function takeSession(root: string): string | undefined {
  const file = sessionFile(root);
  try {
    const text = fs.readFileSync(file, 'utf8');
    fs.rmSync(file, { force: true });
    return text;
  } catch {
    return undefined;
  }
}

/**
 * Stops on the limit, keeping `rest` for the next run; false (go on) when this folder's run stopped
 * here before and resumed (the session was taken: `resumed`).
 */
export function hitLimit(root: string, resets: string, rest: string, resumed: boolean): boolean {
  if (resumed) {
    return false;
  }
  const file = sessionFile(root);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, rest);
  process.stderr.write(
    'API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your account\'s rate limit. Please try again later."}}\n',
  );
  process.stderr.write(`You've hit your usage limit${resets ? ` · ${resets}` : ''}\n`);
  return true;
}
