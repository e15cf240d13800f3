/**
 * Landing an agent branch on the branch of the main worktree: forecast first, then merge, squash
 * or rebase + fast-forward; any failure is undone (merge --abort, reset --merge, rebase --abort)
 * before it is reported. Callers hold the repository's write queue.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { AgentError } from '../../core/errors';
import type { MergeOutcome, MergeStrategy } from '../../core/git';
import { hasStagedChanges, parsePathList, parseStatusPaths } from './changeParsers';
import { noEditor, unmergedPaths } from './changes';
import type { MergeForecaster } from './forecast';
import type { GitExecResult } from './process';
import { currentBranch, hasRef } from './refs';
import type { GitRunner } from './runner';

/** Never the stash (shared by all worktrees), never other branches moved by a rebase, never an editor. */
export const safeMergeConfig = [
  '-c',
  'merge.autoStash=false',
  '-c',
  'rebase.autoStash=false',
  '-c',
  'rebase.updateRefs=false',
];

function failure(runner: GitRunner, cwd: string, command: string, result: GitExecResult): AgentError {
  const detail = (result.stderr.trim() || result.stdout.trim()).slice(0, 4000);
  if (/would be overwritten|untracked working tree files/i.test(detail)) {
    return new AgentError('changesWouldBeOverwritten', { cwd }, detail);
  }
  // Stryker disable next-line StringLiteral: equivalent, any fallback but 'worktreeFailed' is gitCommandFailed
  return runner.fail(new Error(detail), cwd, [command], 'gitFailed');
}

export class Lander {
  constructor(
    private readonly runner: GitRunner,
    private readonly forecaster: MergeForecaster,
  ) {}

  async land(
    cwd: string,
    agentCwd: string,
    branch: string,
    strategy: MergeStrategy,
    message: string,
  ): Promise<MergeOutcome> {
    const target = await currentBranch(this.runner, cwd);
    if (!target) {
      throw new AgentError('detachedHead', { cwd });
    }
    if (target === branch) {
      throw new AgentError('landOnItself', { branch, cwd });
    }
    const [forecast] = await this.forecaster.forecast(cwd, [[target, branch]], true);
    if (!forecast.clean) {
      return { ok: false, conflicts: forecast.conflicts };
    }
    await this.refuseDirty(cwd, forecast.tree);
    switch (strategy) {
      case 'merge':
        return this.merge(cwd, branch, message);
      case 'squash':
        return this.squash(cwd, branch, message);
      case 'rebase':
        return this.rebase(cwd, agentCwd, branch, target);
    }
  }

  /**
   * Staged changes would be swallowed by a squash commit, and local changes in a file the landing
   * changes, or an ignored file where it adds one, would be overwritten: all are refused up front,
   * naming the files.
   */
  private async refuseDirty(cwd: string, mergedTree: string | undefined): Promise<void> {
    const status = (await this.runner.run(cwd, ['status', '--porcelain=v1', '-z', '--untracked-files=all'])).stdout;
    if (hasStagedChanges(status)) {
      throw new AgentError('stagedChanges', { cwd });
    }
    // Stryker disable next-line ConditionalExpression,BlockStatement: equivalent, a clean forecast always has its tree
    if (!mergedTree) {
      return;
    }
    const dirty = parseStatusPaths(status);
    const clash = [
      // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut; no dirty file, no clash anyway
      ...(dirty.length > 0 ? await this.changingAmong(cwd, mergedTree, dirty) : []),
      ...(await this.ignoredInTheWay(cwd, mergedTree, dirty)),
    ];
    if (clash.length > 0) {
      throw new AgentError('landingWouldOverwrite', { cwd, files: clash });
    }
  }

  private async changingAmong(cwd: string, mergedTree: string, dirty: readonly string[]): Promise<string[]> {
    const changing = new Set(
      parsePathList(
        (
          await this.runner.run(cwd, [
            'diff',
            '--name-only',
            '--no-renames',
            '--no-relative',
            '-z',
            'HEAD',
            mergedTree,
            '--',
          ])
        ).stdout,
      ),
    );
    return dirty.filter((p) => changing.has(p));
  }

  /**
   * Files the landing adds that are in the worktree already, ignored (a .env): git overwrites an
   * ignored file without a word, so they are refused like uncommitted changes.
   */
  private async ignoredInTheWay(cwd: string, mergedTree: string, listed: readonly string[]): Promise<string[]> {
    const args = ['diff', '--name-only', '--no-renames', '--no-relative', '-z', '--diff-filter=A', 'HEAD', mergedTree];
    const added = parsePathList((await this.runner.run(cwd, [...args, '--'])).stdout);
    // Stryker disable next-line ConditionalExpression,BlockStatement: a shortcut; nothing added, nothing in the way
    if (added.length === 0) {
      return [];
    }
    const top = await this.runner.out(cwd, ['rev-parse', '--show-toplevel']);
    const known = new Set(listed);
    const present = await Promise.all(
      added.map(
        (p) =>
          !known.has(p) &&
          fs.lstat(path.join(top, p)).then(
            () => true,
            // Stryker disable next-line ArrowFunction: undefined is as false as false for the filter
            () => false,
          ),
      ),
    );
    return added.filter((_, i) => present[i]);
  }

  private async head(cwd: string): Promise<MergeOutcome> {
    return { ok: true, sha: await this.runner.out(cwd, ['rev-parse', 'HEAD']) };
  }

  private async merge(cwd: string, branch: string, message: string): Promise<MergeOutcome> {
    // A merge the user has in progress is theirs: git refuses to start another one, and it is never aborted here.
    const usersMerge = await hasRef(this.runner, cwd, 'MERGE_HEAD');
    const args = [...safeMergeConfig, 'merge', '--no-ff', '--no-edit', '-m', message, branch];
    const result = await this.runner.run(cwd, args, { okCodes: 'any', env: noEditor });
    if (result.exitCode === 0) {
      return this.head(cwd);
    }
    const conflicts = await unmergedPaths(this.runner, cwd);
    if (!usersMerge && (await hasRef(this.runner, cwd, 'MERGE_HEAD'))) {
      await this.runner.run(cwd, ['merge', '--abort']);
    }
    if (conflicts.length > 0) {
      return { ok: false, conflicts };
    }
    throw failure(this.runner, cwd, 'merge', result);
  }

  private async squash(cwd: string, branch: string, message: string): Promise<MergeOutcome> {
    const args = [...safeMergeConfig, 'merge', '--squash', branch];
    const result = await this.runner.run(cwd, args, { okCodes: 'any', env: noEditor });
    if (result.exitCode !== 0) {
      const conflicts = await unmergedPaths(this.runner, cwd);
      // Exit 1: the squash changed the index and files; other codes: git refused before changing anything.
      if (result.exitCode === 1 || conflicts.length > 0) {
        await this.runner.run(cwd, ['reset', '--merge']);
      }
      if (conflicts.length > 0) {
        return { ok: false, conflicts };
      }
      throw failure(this.runner, cwd, 'merge', result);
    }
    const staged = (await this.runner.run(cwd, ['diff', '--cached', '--quiet'], { okCodes: [0, 1] })).exitCode === 1;
    if (!staged) {
      // The branch's content is already there: nothing to commit; drop SQUASH_MSG.
      await this.runner.run(cwd, ['reset', '--merge']);
      return this.head(cwd);
    }
    const commit = ['commit', '--quiet', '-m', message];
    const committed = await this.runner.run(cwd, commit, { okCodes: 'any', env: noEditor });
    if (committed.exitCode !== 0) {
      await this.runner.run(cwd, ['reset', '--merge']);
      throw failure(this.runner, cwd, 'commit', committed);
    }
    return this.head(cwd);
  }

  private async rebase(cwd: string, agentCwd: string, branch: string, target: string): Promise<MergeOutcome> {
    const checkedOut = await currentBranch(this.runner, agentCwd);
    if (checkedOut !== branch) {
      throw new AgentError('rebaseWrongBranch', { cwd: agentCwd, branch: checkedOut, expected: branch });
    }
    const tracked = (await this.runner.run(agentCwd, ['status', '--porcelain=v1', '-z', '--untracked-files=no']))
      .stdout;
    if (tracked !== '') {
      throw new AgentError('rebaseUncommitted', { cwd: agentCwd, branch });
    }
    const before = await this.runner.out(agentCwd, ['rev-parse', 'HEAD']);
    const args = [...safeMergeConfig, 'rebase', target];
    const rebased = await this.runner.run(agentCwd, args, { okCodes: 'any', env: noEditor });
    if (rebased.exitCode !== 0) {
      const conflicts = await unmergedPaths(this.runner, agentCwd);
      await this.runner.exec(agentCwd, ['rebase', '--abort'], { okCodes: 'any' });
      if (conflicts.length > 0) {
        return { ok: false, conflicts };
      }
      throw failure(this.runner, agentCwd, 'rebase', rebased);
    }
    const ff = [...safeMergeConfig, 'merge', '--ff-only', branch];
    const merged = await this.runner.run(cwd, ff, { okCodes: 'any', env: noEditor });
    if (merged.exitCode !== 0) {
      // Put the agent branch back where it was: no half-landed state.
      await this.runner.run(agentCwd, ['reset', '--keep', before]);
      throw failure(this.runner, cwd, 'merge', merged);
    }
    return this.head(cwd);
  }
}
