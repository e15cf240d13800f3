/** Landing: LandingGit on the real git binary (forecasts, merge / squash / rebase, accepting one file). */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { AgentError } from '../../core/errors';
import type { AgentsForecast, LandingGit, MergeForecast, MergeOutcome, MergeStrategy } from '../../core/git';
import { forecastAgents } from './agentsForecast';
import { changedBetween, noEditor, unmergedPaths } from './changes';
import { MergeForecaster, type MergeTreeSupport } from './forecast';
import type { TreeForecast } from './landingParsers';
import { Lander, safeMergeConfig } from './merge';
import { hasRef } from './refs';
import type { GitRunner } from './runner';

function toForecast({ clean, conflicts }: TreeForecast): MergeForecast {
  return { clean, conflicts };
}

export class Landing implements LandingGit {
  private readonly forecaster: MergeForecaster;
  private readonly lander: Lander;

  /** `mergeTree`: how merges are forecast; detected from `git version` when absent (tests force the fallbacks). */
  constructor(
    private readonly runner: GitRunner,
    mergeTree?: MergeTreeSupport,
  ) {
    this.forecaster = new MergeForecaster(runner, mergeTree);
    this.lander = new Lander(runner, this.forecaster);
  }

  async forecastMerge(repoRoot: string, ours: string, theirs: string): Promise<MergeForecast> {
    const [forecast] = await this.forecaster.forecast(repoRoot, [[ours, theirs]]);
    return toForecast(forecast);
  }

  async forecastMany(repoRoot: string, pairs: readonly (readonly [string, string])[]): Promise<MergeForecast[]> {
    return (await this.forecaster.forecast(repoRoot, pairs)).map(toForecast);
  }

  forecastAgents(repoRoot: string, into: string, branches: readonly string[]): Promise<AgentsForecast> {
    return forecastAgents(this.forecaster, this.runner, repoRoot, into, branches);
  }

  land(cwd: string, agentCwd: string, branch: string, strategy: MergeStrategy, message: string): Promise<MergeOutcome> {
    return this.runner.write(cwd, () => this.lander.land(cwd, agentCwd, branch, strategy, message));
  }

  /**
   * `git merge --no-ff --no-edit ref` (`-m message` when given); conflicts stay in place. Any other
   * failure is undone and thrown.
   */
  mergeLeavingConflicts(
    cwd: string,
    ref: string,
    message?: string,
  ): Promise<{ readonly conflicts: readonly string[] }> {
    return this.runner.write(cwd, async () => {
      // Stryker disable next-line ArrayDeclaration: equivalent, git edits no message without a terminal
      const how = message === undefined ? ['--no-edit'] : ['-m', message];
      const args = [...safeMergeConfig, 'merge', '--no-ff', ...how, ref];
      const result = await this.runner.run(cwd, args, { okCodes: 'any', env: noEditor });
      if (result.exitCode === 0) {
        return { conflicts: [] };
      }
      const conflicts = await unmergedPaths(this.runner, cwd);
      if (conflicts.length > 0) {
        return { conflicts };
      }
      if (await hasRef(this.runner, cwd, 'MERGE_HEAD')) {
        await this.runner.run(cwd, ['merge', '--abort']);
      }
      const detail = result.stderr.trim() || result.stdout.trim();
      if (/would be overwritten|untracked working tree files/i.test(detail)) {
        throw new AgentError('mergeWouldOverwrite', { cwd, ref }, detail);
      }
      throw this.runner.fail(
        new Error(detail),
        cwd,
        ['merge'],
        // Stryker disable next-line StringLiteral: equivalent, any fallback but 'worktreeFailed' is gitCommandFailed
        'gitFailed',
      );
    });
  }

  /**
   * True when every file `branch` changed since the merge base is the same in `into`, or when
   * merging `branch` into `into` would change nothing (covers squash and rebase merges).
   */
  async isMergedByContent(repoRoot: string, branch: string, into: string): Promise<boolean> {
    const base = await this.runner.run(repoRoot, ['merge-base', into, branch], { okCodes: [0, 1] });
    if (base.exitCode !== 0) {
      return false;
    }
    const [changed, differing] = await Promise.all([
      changedBetween(this.runner, repoRoot, base.stdout.trim(), branch),
      changedBetween(this.runner, repoRoot, into, branch),
    ]);
    const different = new Set(differing);
    if (changed.every((p) => !different.has(p))) {
      return true;
    }
    const [forecast] = await this.forecaster.forecast(repoRoot, [[into, branch]]);
    return forecast.clean && forecast.tree === (await this.runner.out(repoRoot, ['rev-parse', `${into}^{tree}`]));
  }

  /** `path` is relative to `cwd`. Only the file changes: the index is left alone. */
  restoreFile(cwd: string, sha: string, filePath: string): Promise<void> {
    return this.runner.write(cwd, async () => {
      const root = path.resolve(cwd);
      const full = path.resolve(root, filePath);
      const relative = path.relative(root, full);
      // A name such as "..notes" is a file of the folder; ".." or "../x" is not.
      if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
        throw new AgentError('fileOutsideFolder', { path: filePath, cwd });
      }
      const gitPath = relative.split(path.sep).join('/');
      const listed = await this.runner.run(cwd, ['--literal-pathspecs', 'ls-tree', '-z', sha, '--', gitPath]);
      if (listed.stdout !== '') {
        await this.runner.run(cwd, ['--literal-pathspecs', 'restore', `--source=${sha}`, '--worktree', '--', gitPath]);
        return;
      }
      await fs.rm(full, { force: true });
      await removeEmptyParents(path.dirname(full), root);
    });
  }

  async stashFiles(cwd: string, files: readonly string[], message: string): Promise<void> {
    if (files.length === 0) {
      return;
    }
    return this.runner.write(cwd, async () => {
      await this.runner.run(cwd, ['stash', 'push', '--include-untracked', '-m', message, '--', ...files]);
    });
  }
}

/** Folders git would not keep either: empty ones left by deleting their last file, up to `root`. */
async function removeEmptyParents(dir: string, root: string): Promise<void> {
  let current = dir;
  // `dir` is inside `root`: going up reaches `root`, which stays. The first folder that is not empty ends the walk.
  while (current.startsWith(root + path.sep) && (await removeIfEmpty(current))) {
    current = path.dirname(current);
  }
}

function removeIfEmpty(dir: string): Promise<boolean> {
  return fs.rmdir(dir).then(
    () => true,
    // Stryker disable next-line BooleanLiteral,ArrowFunction: equivalent, undefined ends the walk as false does
    () => false,
  );
}
