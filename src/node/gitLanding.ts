/** GitLandingPort on the real git binary: commits, forecasts, landing, snapshots. */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { parsePathList } from '../core/landing';
import { AgentError } from '../core/errors';
import { hasConflictMarkers, parseSavedWork, parseStatusPaths, type TreeForecast } from '../core/gitOutput';
import type { GitLandingPort, MergeForecast, MergeOutcome, MergeStrategy, SavedWork } from '../core/ports';
import { GitRunner, type GitRunnerOptions } from './git/runner';
import { requireFullRef } from './git/refs';
import { MergeForecaster, type MergeTreeSupport } from './gitForecast';
import { currentBranch, hasRef, Lander, noEditor, safeMergeConfig, unmergedPaths } from './gitMerge';
import { restoreWork, saveWork } from './gitSnapshot';

export interface GitLandingOptions extends GitRunnerOptions {
  /**
   * Shares the process cap and write queues with GitService (pass its `context`); the other options
   * are then ignored.
   */
  readonly context?: GitRunner;
  /** How merges are forecast; detected from `git version` when absent. Tests force the fallbacks with it. */
  readonly mergeTree?: MergeTreeSupport;
}

function toForecast({ clean, conflicts }: TreeForecast): MergeForecast {
  return { clean, conflicts };
}

export class GitLanding implements GitLandingPort {
  readonly context: GitRunner;
  private readonly forecaster: MergeForecaster;
  private readonly lander: Lander;

  constructor(options: GitLandingOptions = {}) {
    this.context = options.context ?? new GitRunner(options);
    this.forecaster = new MergeForecaster(this.context, options.mergeTree);
    this.lander = new Lander(this.context, this.forecaster);
  }

  /**
   * `git add --all -- .` + `git commit -m` (the repository's hooks run). Only `cwd`'s subtree is
   * staged, like dirtyFiles and the change set only show it. A merge in progress is committed even
   * when it changes nothing; files still holding conflict markers are refused.
   */
  commitAll(cwd: string, message: string): Promise<string | undefined> {
    return this.context.write(cwd, async () => {
      await this.refuseUnresolved(cwd);
      await this.context.run(cwd, ['add', '--all', '--', '.']);
      const staged = (await this.context.run(cwd, ['diff', '--cached', '--quiet'], { okCodes: [0, 1] })).exitCode === 1;
      if (!staged && !(await hasRef(this.context, cwd, 'MERGE_HEAD'))) {
        return undefined;
      }
      await this.context.run(cwd, ['commit', '--quiet', '-m', message], { env: noEditor });
      return this.context.out(cwd, ['rev-parse', 'HEAD']);
    });
  }

  currentBranch(cwd: string): Promise<string | undefined> {
    return currentBranch(this.context, cwd);
  }

  async forecastMerge(repoRoot: string, ours: string, theirs: string): Promise<MergeForecast> {
    const [forecast] = await this.forecaster.forecast(repoRoot, [[ours, theirs]]);
    return toForecast(forecast);
  }

  async forecastMany(repoRoot: string, pairs: readonly (readonly [string, string])[]): Promise<MergeForecast[]> {
    return (await this.forecaster.forecast(repoRoot, pairs)).map(toForecast);
  }

  async dirtyFiles(cwd: string): Promise<string[]> {
    const [status, prefix] = await Promise.all([
      this.context.run(cwd, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', '.']),
      this.context.out(cwd, ['rev-parse', '--show-prefix']),
    ]);
    // Porcelain paths are relative to the repository root whatever the cwd.
    return parseStatusPaths(status.stdout).map((p) => (prefix ? path.posix.relative(prefix, p) : p));
  }

  async changedBetween(repoRoot: string, from: string, to: string): Promise<string[]> {
    const result = await this.context.run(repoRoot, [
      'diff',
      '--name-only',
      '--no-renames',
      '--no-relative',
      '-z',
      from,
      to,
      '--',
    ]);
    return parsePathList(result.stdout);
  }

  land(cwd: string, agentCwd: string, branch: string, strategy: MergeStrategy, message: string): Promise<MergeOutcome> {
    return this.context.write(cwd, () => this.lander.land(cwd, agentCwd, branch, strategy, message));
  }

  /** `git merge --no-ff --no-edit ref`; conflicts stay in place. Any other failure is undone and thrown. */
  mergeLeavingConflicts(cwd: string, ref: string): Promise<{ readonly conflicts: readonly string[] }> {
    return this.context.write(cwd, async () => {
      const args = [...safeMergeConfig, 'merge', '--no-ff', '--no-edit', ref];
      const result = await this.context.run(cwd, args, { okCodes: 'any', env: noEditor });
      if (result.exitCode === 0) {
        return { conflicts: [] };
      }
      const conflicts = await unmergedPaths(this.context, cwd);
      if (conflicts.length > 0) {
        return { conflicts };
      }
      if (await hasRef(this.context, cwd, 'MERGE_HEAD')) {
        await this.context.run(cwd, ['merge', '--abort']);
      }
      const detail = result.stderr.trim() || result.stdout.trim();
      if (/would be overwritten|untracked working tree files/i.test(detail)) {
        throw new AgentError('mergeWouldOverwrite', { cwd, ref }, detail);
      }
      throw this.context.fail(new Error(detail), cwd, ['merge'], 'gitFailed');
    });
  }

  async saveWork(cwd: string, ref: string, message: string): Promise<SavedWork> {
    requireFullRef(ref);
    return this.context.write(cwd, () => saveWork(this.context, cwd, ref, message));
  }

  restoreWork(repoRoot: string, dir: string, branch: string, ref: string): Promise<void> {
    return this.context.write(repoRoot, () => restoreWork(this.context, repoRoot, dir, branch, ref));
  }

  /**
   * True when every file `branch` changed since the merge base is the same in `into`, or when
   * merging `branch` into `into` would change nothing (covers squash and rebase merges).
   */
  async isMergedByContent(repoRoot: string, branch: string, into: string): Promise<boolean> {
    const base = await this.context.run(repoRoot, ['merge-base', into, branch], { okCodes: [0, 1] });
    if (base.exitCode !== 0) {
      return false;
    }
    const [changed, differing] = await Promise.all([
      this.changedBetween(repoRoot, base.stdout.trim(), branch),
      this.changedBetween(repoRoot, into, branch),
    ]);
    const different = new Set(differing);
    if (changed.every((p) => !different.has(p))) {
      return true;
    }
    const [forecast] = await this.forecaster.forecast(repoRoot, [[into, branch]]);
    return (
      forecast.clean &&
      forecast.tree !== undefined &&
      forecast.tree === (await this.context.out(repoRoot, ['rev-parse', `${into}^{tree}`]))
    );
  }

  /** `path` is relative to `cwd`. Only the file changes: the index is left alone. */
  restoreFile(cwd: string, sha: string, filePath: string): Promise<void> {
    return this.context.write(cwd, async () => {
      const root = path.resolve(cwd);
      const full = path.resolve(root, filePath);
      const relative = path.relative(root, full);
      if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
        throw new AgentError('fileOutsideFolder', { path: filePath, cwd });
      }
      const gitPath = relative.split(path.sep).join('/');
      const listed = await this.context.run(cwd, ['--literal-pathspecs', 'ls-tree', '-z', sha, '--', gitPath]);
      if (listed.stdout !== '') {
        await this.context.run(cwd, ['--literal-pathspecs', 'restore', `--source=${sha}`, '--worktree', '--', gitPath]);
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
    return this.context.write(cwd, async () => {
      await this.context.run(cwd, ['stash', 'push', '--include-untracked', '-m', message, '--', ...files]);
    });
  }

  async listSavedWork(repoRoot: string, prefix: string): Promise<SavedWork[]> {
    const format = '--format=%(refname)%00%(objectname)%00%(committerdate:unix)';
    return parseSavedWork(await this.context.out(repoRoot, ['for-each-ref', format, '--', prefix]));
  }

  async deleteRef(repoRoot: string, ref: string): Promise<void> {
    requireFullRef(ref);
    return this.context.write(repoRoot, async () => {
      await this.context.run(repoRoot, ['update-ref', '-d', ref]);
    });
  }

  private async refuseUnresolved(cwd: string): Promise<void> {
    const unmerged = await unmergedPaths(this.context, cwd);
    if (unmerged.length === 0) {
      return;
    }
    const top = await this.context.out(cwd, ['rev-parse', '--show-toplevel']);
    const marked: string[] = [];
    for (const p of unmerged) {
      const text = await fs.readFile(path.join(top, p), 'utf8').catch(() => '');
      if (hasConflictMarkers(text)) {
        marked.push(p);
      }
    }
    if (marked.length > 0) {
      throw new AgentError('unresolvedConflicts', { files: marked }, marked.join('\n'));
    }
  }
}

/** Folders git would not keep either: empty ones left by deleting their last file, up to `root`. */
async function removeEmptyParents(dir: string, root: string): Promise<void> {
  let current = dir;
  while (current !== root && current.startsWith(root + path.sep)) {
    const removed = await fs.rmdir(current).then(
      () => true,
      () => false,
    );
    if (!removed) {
      return;
    }
    current = path.dirname(current);
  }
}
