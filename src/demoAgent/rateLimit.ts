/**
 * The demo agent's `ratelimit` step, so that tests can drive quota pauses with a real process: the
 * first time a folder's run reaches it, the agent prints a usage-limit message as Claude Code does
 * and exits 1, keeping the rest of its task as a "session" of that folder (like a CLI's
 * conversation). The next run there whose prompt has no command (a follow-up such as the resume
 * the extension sends) runs that rest; a run that reaches the step again with its session saved
 * passes it by.
 *
 * The session lives in the folder's own git folder (a worktree's `<common>/worktrees/<name>`), so it
 * goes with the worktree (Discard, a removal, a deleted test repository) and is seen inside a
 * sandbox, which empties the temp folder; only a folder outside git keeps it in temp.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash } from 'node:crypto';

const sessionName = 'parallel-agents-demo.session';

/** The folder's git folder: `.git` itself, or where a worktree's `.git` file points; undefined outside git. */
function gitFolder(root: string): string | undefined {
  const dotGit = path.join(root, '.git');
  const stat = fs.statSync(dotGit, { throwIfNoEntry: false });
  if (stat?.isDirectory()) {
    return dotGit;
  }
  const pointer = stat?.isFile() ? /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(dotGit, 'utf8')) : null;
  const dir = pointer ? path.resolve(root, pointer[1].trim()) : undefined;
  return dir !== undefined && fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() ? dir : undefined;
}

/** Where the session of the folder `root` (its real path) is kept. */
export function sessionFile(root: string): string {
  const git = gitFolder(root);
  if (git !== undefined) {
    return path.join(git, sessionName);
  }
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
