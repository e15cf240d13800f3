/** Status and diff: ChangeGit on the real git binary. */
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ChangedFile } from '../../core/agent';
import { AgentError } from '../../core/errors';
import type { ChangeGit, WorkState } from '../../core/git';
import { sniffUntracked } from './binarySniffer';
import { showFiles } from './blobs';
import type { ChangeFreshness } from './changeFreshness';
import { changeSetOf } from './changePaths';
import { buildChangeSet, countStatusEntries, parsePathList, parseStatusPaths } from './changeParsers';
import { GitProcessError } from './errors';
import { hasConflictMarkers } from './landingParsers';
import { hasRef } from './refs';
import type { GitRunner } from './runner';

export const noEditor = { GIT_EDITOR: ':' };

/** Repository-relative paths with unresolved conflicts in the worktree at `cwd`. */
export async function unmergedPaths(runner: GitRunner, cwd: string): Promise<string[]> {
  return parsePathList(
    (await runner.run(cwd, ['diff', '--name-only', '--no-relative', '--diff-filter=U', '-z'])).stdout,
  );
}

/** Paths changed between two commits (relative to the repository). */
export async function changedBetween(runner: GitRunner, repoRoot: string, from: string, to: string): Promise<string[]> {
  const args = ['diff', '--name-only', '--no-renames', '--no-relative', '-z', from, to, '--'];
  return parsePathList((await runner.run(repoRoot, args)).stdout);
}

export class Changes implements ChangeGit {
  constructor(
    private readonly runner: GitRunner,
    private readonly freshness?: ChangeFreshness,
  ) {}

  async changeSet(cwd: string, baseSha: string): Promise<ChangedFile[]> {
    const computed = await this.freshness?.begin(cwd, baseSha);
    // --raw --numstat: statuses, binary flags and line counts from one process. --relative: paths
    // relative to cwd, like ls-files' own, when cwd is a subfolder of the repository.
    const diffArgs = ['diff', '--raw', '--numstat', '-z', '-M', '--relative', '--no-ext-diff', '--no-textconv'];
    const [diff, untracked] = await Promise.all([
      this.runner.run(cwd, [...diffArgs, baseSha, '--']),
      this.runner.run(cwd, ['ls-files', '--others', '--exclude-standard', '-z']),
    ]);
    const content = await sniffUntracked(cwd, parsePathList(untracked.stdout));
    const files = buildChangeSet({ diff: diff.stdout, untracked: untracked.stdout }, content.binary, content.lines);
    computed?.();
    return files;
  }

  changeSetOf(cwd: string, baseSha: string, paths: readonly string[]): Promise<ChangedFile[]> {
    return changeSetOf(this.runner, cwd, baseSha, paths);
  }

  async hashFiles(cwd: string, paths: readonly string[]): Promise<(string | undefined)[]> {
    if (paths.length === 0) {
      return [];
    }
    const hash = async (list: readonly string[]) =>
      (await this.runner.run(cwd, ['hash-object', '--', ...list])).stdout.split('\n').filter((l) => l !== '');
    try {
      const hashes = await hash(paths);
      if (hashes.length === paths.length) {
        return hashes;
      }
    } catch {
      // One missing or unreadable file fails them all: ask file by file.
    }
    return Promise.all(
      paths.map((p) =>
        hash([p]).then(
          (h) => h[0],
          () => undefined,
        ),
      ),
    );
  }

  async showFile(repoRoot: string, sha: string, filePath: string): Promise<Uint8Array | undefined> {
    const args = [`${sha}:${filePath}`];
    try {
      return await this.runner.buffer(repoRoot, ['show', ...args]);
    } catch (e) {
      // Git looks a full sha's path up without checking the commit exists: confirm it does.
      if (e instanceof GitProcessError && /does not exist in|exists on disk, but not in/.test(e.stderr)) {
        await this.runner.run(repoRoot, ['rev-parse', '--verify', '--end-of-options', `${sha}^{commit}`]);
        return undefined;
      }
      throw this.runner.fail(e, repoRoot, ['show', ...args], 'gitFailed');
    }
  }

  async showFiles(repoRoot: string, sha: string, paths: readonly string[]): Promise<(Uint8Array | undefined)[]> {
    try {
      return await showFiles(this.runner, repoRoot, sha, paths, (p) => this.showFile(repoRoot, sha, p));
    } catch (e) {
      throw this.runner.fail(e, repoRoot, ['cat-file', '--batch'], 'gitFailed');
    }
  }

  async workState(cwd: string, baseSha: string): Promise<WorkState> {
    const [status, ahead] = await Promise.all([
      this.runner.run(cwd, ['status', '--porcelain=v1', '-z', '--branch', '--untracked-files=all', '--', '.']),
      this.runner.run(cwd, ['rev-list', '--count', `${baseSha}..HEAD`, '--']),
    ]);
    return {
      uncommittedFiles: countStatusEntries(status.stdout),
      commitsAhead: Number.parseInt(ahead.stdout.trim(), 10) || 0,
    };
  }

  async dirtyFiles(cwd: string): Promise<string[]> {
    const [status, prefix] = await Promise.all([
      this.runner.run(cwd, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', '.']),
      this.runner.out(cwd, ['rev-parse', '--show-prefix']),
    ]);
    // Porcelain paths are relative to the repository root whatever the cwd.
    return parseStatusPaths(status.stdout).map((p) => (prefix ? path.posix.relative(prefix, p) : p));
  }

  changedBetween(repoRoot: string, from: string, to: string): Promise<string[]> {
    return changedBetween(this.runner, repoRoot, from, to);
  }

  /**
   * Through a temporary copy of the index (its stat cache spares re-reading unchanged files), so
   * the real index is not touched; git's racy-file check still reads files changed too recently.
   */
  async contentTree(cwd: string): Promise<string> {
    const indexPath = await this.runner.out(cwd, ['rev-parse', '--path-format=absolute', '--git-path', 'index']);
    const temp = await fs.mkdtemp(path.join(os.tmpdir(), 'pa-tree-'));
    const env = { GIT_INDEX_FILE: path.join(temp, 'index') };
    try {
      await fs.copyFile(indexPath, env.GIT_INDEX_FILE).catch(() => undefined);
      await this.runner.run(cwd, ['add', '--all', '--', ':/'], { env });
      return await this.runner.out(cwd, ['write-tree'], { env });
    } finally {
      await fs.rm(temp, { recursive: true, force: true });
    }
  }

  /**
   * `git add --all -- .` + `git commit -m` (the repository's hooks run). Only `cwd`'s subtree is
   * staged, like dirtyFiles and the change set only show it. A merge in progress is committed even
   * when it changes nothing; files still holding conflict markers are refused.
   */
  commitAll(cwd: string, message: string): Promise<string | undefined> {
    return this.runner.write(cwd, async () => {
      await this.refuseUnresolved(cwd);
      await this.runner.run(cwd, ['add', '--all', '--', '.']);
      const staged = (await this.runner.run(cwd, ['diff', '--cached', '--quiet'], { okCodes: [0, 1] })).exitCode === 1;
      if (!staged && !(await hasRef(this.runner, cwd, 'MERGE_HEAD'))) {
        return undefined;
      }
      await this.runner.run(cwd, ['commit', '--quiet', '-m', message], { env: noEditor });
      return this.runner.out(cwd, ['rev-parse', 'HEAD']);
    });
  }

  private async refuseUnresolved(cwd: string): Promise<void> {
    const unmerged = await unmergedPaths(this.runner, cwd);
    if (unmerged.length === 0) {
      return;
    }
    const top = await this.runner.out(cwd, ['rev-parse', '--show-toplevel']);
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
