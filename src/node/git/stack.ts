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
