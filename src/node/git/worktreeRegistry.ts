/**
 * The worktree registry: `git worktree list` (the one place that runs it), and the registration of
 * one worktree read from the files git keeps, which a new worktree is checked against.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { AgentError } from '../../core/errors';
import type { WorktreeEntry } from '../../core/git';
import { canonicalPath } from '../fileSystem';
import { isFullSha } from './refParsers';
import type { GitRunner } from './runner';
import { parseWorktreeList } from './worktreeParsers';

/** `git worktree list --porcelain -z`, the main worktree first. */
export async function listWorktrees(runner: GitRunner, repoRoot: string): Promise<WorktreeEntry[]> {
  return parseWorktreeList((await runner.run(repoRoot, ['worktree', 'list', '--porcelain', '-z'])).stdout);
}

/** The worktree git lists at `target` (paths compared by canonicalPath), or undefined. */
export async function findWorktree(
  runner: GitRunner,
  repoRoot: string,
  target: string,
): Promise<WorktreeEntry | undefined> {
  const wanted = await canonicalPath(target);
  for (const entry of await listWorktrees(runner, repoRoot)) {
    if ((await canonicalPath(entry.path)) === wanted) {
      return entry;
    }
  }
  return undefined;
}

const readText = (file: string) => fs.readFile(file, 'utf8').catch(() => undefined);

/**
 * The entry `git worktree list` would show for `target`, read from the registry's files rather
 * than by listing every worktree: `<target>/.git` names an entry in `<common dir>/worktrees/`,
 * whose `gitdir` names `<target>/.git` back and whose `commondir` exists; its HEAD names the
 * branch; a `locked` file locks it. Undefined when `target` is not registered so. A branch tip
 * that is not a loose ref file is asked of git.
 */
export async function readRegistration(
  runner: GitRunner,
  repoRoot: string,
  target: string,
): Promise<WorktreeEntry | undefined> {
  const commonDir = await runner.commonDir(repoRoot);
  if (commonDir === undefined) {
    return findWorktree(runner, repoRoot, target);
  }
  const dotGit = path.join(target, '.git');
  const pointer = /^gitdir: (.+)$/m.exec((await readText(dotGit)) ?? '')?.[1]?.trim();
  const entry = pointer === undefined ? undefined : path.resolve(target, pointer);
  if (entry === undefined || (await canonicalPath(path.dirname(entry))) !== path.join(commonDir, 'worktrees')) {
    return undefined;
  }
  const back = (await readText(path.join(entry, 'gitdir')))?.trim();
  if (
    back === undefined ||
    (await canonicalPath(path.resolve(entry, back))) !== (await canonicalPath(dotGit)) ||
    (await readText(path.join(entry, 'commondir'))) === undefined
  ) {
    return undefined;
  }
  const head = ((await readText(path.join(entry, 'HEAD'))) ?? '').trim();
  const locked = await readText(path.join(entry, 'locked'));
  const base = { path: target, bare: false, ...(locked === undefined ? {} : { locked: locked.trim() }) };
  if (isFullSha(head)) {
    return { ...base, head, detached: true };
  }
  const branch = /^ref: (refs\/.+)$/.exec(head)?.[1];
  return { ...base, branch, head: branch && (await tipOf(runner, repoRoot, commonDir, branch)), detached: false };
}

async function tipOf(runner: GitRunner, repoRoot: string, commonDir: string, ref: string): Promise<string | undefined> {
  const loose = (await readText(path.join(commonDir, ...ref.split('/'))))?.trim();
  if (loose !== undefined && isFullSha(loose)) {
    return loose;
  }
  const result = await runner.run(repoRoot, ['rev-parse', '--quiet', '--verify', `${ref}^{commit}`], {
    okCodes: [0, 1],
  });
  return result.exitCode === 0 ? result.stdout.trim() : undefined;
}

/** Throws (reason worktreeFailed) unless git registers a worktree at `target` with `branch` checked out. */
export async function verifyCheckedOut(
  runner: GitRunner,
  repoRoot: string,
  target: string,
  branch: string,
): Promise<void> {
  const entry = await readRegistration(runner, repoRoot, target);
  if (!entry) {
    throw new AgentError('worktreeNotListed', { path: target });
  }
  if (entry.branch !== `refs/heads/${branch}`) {
    throw new AgentError('worktreeOnOtherBranch', { path: target, branch: entry.branch, expected: branch });
  }
}
