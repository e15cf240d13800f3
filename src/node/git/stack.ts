/**
 * Stacked agents: moving an agent's work from the old snapshot of its parent's worktree onto a new
 * one. Work not yet committed is carried by `reset --keep` (which refuses, changing nothing, when a
 * file it would move has local changes); commits are replayed by `rebase --onto`, aborted on a
 * conflict. Either way the worktree is as it was when it is refused.
 */
import { AgentError } from '../../core/errors';
import { noEditor } from './changes';
import { safeMergeConfig } from './merge';
import type { GitRunner } from './runner';

/** git's words for a refusal, shortened for a message. */
const words = (r: { stdout: string; stderr: string }) => (r.stderr.trim() || r.stdout.trim()).slice(0, 4000);

export async function rebaseOnto(runner: GitRunner, cwd: string, oldBase: string, newBase: string): Promise<void> {
  const commits = Number(await runner.out(cwd, ['rev-list', '--count', `${oldBase}..HEAD`]));
  if (commits === 0) {
    const reset = await runner.run(cwd, ['reset', '--keep', newBase], { okCodes: 'any' });
    if (reset.exitCode !== 0) {
      throw new AgentError('rebaseOnParentConflict', { cwd }, words(reset));
    }
    return;
  }
  const dirty = await runner.out(cwd, ['status', '--porcelain', '--untracked-files=no']);
  if (dirty !== '') {
    throw new AgentError('rebaseOnParentUncommitted', { cwd, commits });
  }
  const args = [...safeMergeConfig, 'rebase', '--onto', newBase, oldBase];
  const rebased = await runner.run(cwd, args, { okCodes: 'any', env: noEditor });
  if (rebased.exitCode !== 0) {
    await runner.exec(cwd, ['rebase', '--abort'], { okCodes: 'any' });
    throw new AgentError('rebaseOnParentConflict', { cwd }, words(rebased));
  }
}

/**
 * A commit with the files of `snapshot` whose parent is `onto`: a parent's newer work as one step
 * after the snapshot a stacked agent started from, so a merge of it has that snapshot as its base.
 */
export function commitSnapshotOnto(
  runner: GitRunner,
  cwd: string,
  snapshot: string,
  onto: string,
  message: string,
): Promise<string> {
  return runner.out(cwd, ['commit-tree', `${snapshot}^{tree}`, '-p', onto, '-m', message]);
}

/**
 * Moves the branch of `cwd` to `base` keeping every file as it is: what differs from `base` stays
 * uncommitted (`message` undefined) or becomes one commit on `base`.
 */
export async function settleOnto(runner: GitRunner, cwd: string, base: string, message?: string): Promise<void> {
  if (message === undefined) {
    await runner.run(cwd, ['reset', '--quiet', '--mixed', base]);
    return;
  }
  const sha = await runner.out(cwd, ['commit-tree', 'HEAD^{tree}', '-p', base, '-m', message]);
  await runner.run(cwd, ['reset', '--quiet', '--soft', sha]);
}
