/** Refs and branches: RefGit on the real git binary. */
import * as path from 'node:path';
import { AgentError } from '../../core/errors';
import type { GitRefInfo, RefGit } from '../../core/git';
import { GitProcessError } from './errors';
import { parseBranchNames, parseRefs, parseSymbolicHead } from './refParsers';
import type { GitRunner } from './runner';

/** Throws notAFullRef (reason gitFailed) unless `ref` is a full ref name. */
export function requireFullRef(ref: string): void {
  if (!ref.startsWith('refs/')) {
    throw new AgentError('notAFullRef', { ref });
  }
}

export async function hasRef(runner: GitRunner, cwd: string, ref: string): Promise<boolean> {
  return (await runner.run(cwd, ['rev-parse', '--quiet', '--verify', ref], { okCodes: [0, 1] })).exitCode === 0;
}

export async function currentBranch(runner: GitRunner, cwd: string): Promise<string | undefined> {
  const result = await runner.run(cwd, ['symbolic-ref', '--quiet', 'HEAD'], { okCodes: [0, 1] });
  return result.exitCode === 0 ? parseSymbolicHead(result.stdout) : undefined;
}

/** Whether the local branch exists; `reason` names a failure to find out. */
export async function branchExists(
  runner: GitRunner,
  repoRoot: string,
  branch: string,
  reason: 'gitFailed' | 'worktreeFailed' = 'gitFailed',
): Promise<boolean> {
  const args = ['rev-parse', '--verify', `refs/heads/${branch}`];
  try {
    await runner.text(repoRoot, args);
    return true;
  } catch (e) {
    if (e instanceof GitProcessError && e.exitCode > 0 && /needed a single revision/i.test(e.stderr)) {
      return false;
    }
    throw runner.fail(e, repoRoot, args, reason);
  }
}

export class Refs implements RefGit {
  constructor(private readonly runner: GitRunner) {}

  async repoRoot(folder: string): Promise<string> {
    return path.normalize(await this.runner.out(folder, ['rev-parse', '--show-toplevel']));
  }

  async headSha(repoRoot: string): Promise<string> {
    const args = ['rev-parse', '--verify', 'HEAD^{commit}'];
    try {
      return (await this.runner.text(repoRoot, args)).trim();
    } catch (e) {
      if (e instanceof GitProcessError && /needed a single revision|unknown revision/i.test(e.stderr)) {
        throw new AgentError('noCommits', { repoRoot }, e.stderr.trim());
      }
      throw this.runner.fail(e, repoRoot, args, 'gitFailed');
    }
  }

  async resolveCommit(repoRoot: string, ref: string): Promise<string> {
    if (ref.startsWith('-')) {
      throw new AgentError('invalidRefName', { ref });
    }
    const args = ['rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`];
    try {
      return (await this.runner.text(repoRoot, args)).trim();
    } catch (e) {
      if (e instanceof GitProcessError && /needed a single revision|unknown revision|bad revision/i.test(e.stderr)) {
        throw new AgentError('unknownCommit', { ref, repoRoot }, e.stderr.trim());
      }
      throw this.runner.fail(e, repoRoot, args, 'gitFailed');
    }
  }

  async localBranches(repoRoot: string): Promise<Set<string>> {
    return parseBranchNames(await this.runner.out(repoRoot, ['for-each-ref', '--format=%(refname)', 'refs/heads/']));
  }

  currentBranch(cwd: string): Promise<string | undefined> {
    return currentBranch(this.runner, cwd);
  }

  deleteBranch(repoRoot: string, branch: string, force: boolean): Promise<void> {
    return this.runner.write(repoRoot, async () => {
      const args = ['branch', force ? '-D' : '-d', '--', branch];
      try {
        await this.runner.text(repoRoot, args);
      } catch (e) {
        // Deleting is idempotent: a branch that is already gone is the outcome asked for.
        if (e instanceof GitProcessError && /branch '.*' not found/.test(e.stderr)) {
          return;
        }
        throw this.runner.fail(e, repoRoot, args, 'gitFailed');
      }
    });
  }

  async listRefs(repoRoot: string, prefixes: readonly string[]): Promise<GitRefInfo[]> {
    const format = '--format=%(refname)%00%(objectname)%00%(parent)';
    return parseRefs((await this.runner.run(repoRoot, ['for-each-ref', format, '--', ...prefixes])).stdout);
  }

  async mergeBase(repoRoot: string, a: string, b: string): Promise<string | undefined> {
    const result = await this.runner.run(repoRoot, ['merge-base', '--end-of-options', a, b], { okCodes: [0, 1] });
    return result.exitCode === 0 ? result.stdout.trim() : undefined;
  }

  async deleteRef(repoRoot: string, ref: string): Promise<void> {
    requireFullRef(ref);
    return this.runner.write(repoRoot, async () => {
      await this.runner.run(repoRoot, ['update-ref', '-d', ref]);
    });
  }
}
