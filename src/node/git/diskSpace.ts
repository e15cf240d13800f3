// git does not always say why a write failed ("error: unable to write file x" carries no errno),
// so its write failures are read as a full disk, or checked against the free space left.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { AgentError, isDiskFull } from '../../core/errors';
import { GitProcessError } from './errors';

/** Below this much free space a failed write is taken to be a full disk. */
const NEARLY_FULL_BYTES = 1024 * 1024;

const WRITE_FAILURE =
  /unable to (write|create) (new )?(index )?file|short write|write error|could not write|failed to write/i;

/** Free bytes on the file system holding `dir` (or its nearest existing ancestor); undefined when unknown. */
export async function freeBytes(dir: string): Promise<number | undefined> {
  let probe = path.resolve(dir);
  for (;;) {
    try {
      const stats = await fs.statfs(probe);
      return Number(stats.bavail) * Number(stats.bsize);
    } catch {
      const parent = path.dirname(probe);
      if (parent === probe) {
        return undefined;
      }
      probe = parent;
    }
  }
}

/**
 * When `e`, a failure of a git command that writes into `target`, comes from a full disk, the
 * diskFull AgentError for it; otherwise undefined.
 */
export async function diskFullError(e: unknown, target: string): Promise<AgentError | undefined> {
  if (!(e instanceof GitProcessError)) {
    return undefined;
  }
  // git reports a failed open with its errno, but a failed write (after the open worked) only as
  // "unable to write file x": on a local disk that is a full disk or an exhausted quota.
  const said = isDiskFull(e.stderr) || /unable to write file|short write/i.test(e.stderr);
  if (!said && !WRITE_FAILURE.test(e.stderr)) {
    return undefined;
  }
  const free = await freeBytes(target);
  if (!said && (free === undefined || free >= NEARLY_FULL_BYTES)) {
    return undefined;
  }
  const freeKb = free === undefined ? undefined : Math.floor(free / 1024);
  return new AgentError('worktreeDiskFull', { path: target, freeKb }, e.stderr.trim());
}
