/** Refs and branches: RefGit on the real git binary. */
import * as path from 'node:path';
import { AgentError } from '../../core/errors';
import type { GitRefInfo, RefGit, RepositoryLocation } from '../../core/git';
import { GitProcessError } from './errors';
import { type KnownRepository, gitDirOf, readHead, signature } from './headFiles';
import { parseBranchNames, parseLocation, parseRefs, parseSymbolicHead } from './refParsers';
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
  // Stryker disable next-line ConditionalExpression: equivalent, exit 1 prints nothing and '' is no branch
  return result.exitCode === 0 ? parseSymbolicHead(result.stdout) : undefined;
}

/** Whether the local branch exists; `reason` names a failure to find out. */
export async function branchExists(
  runner: GitRunner,
  repoRoot: string,
  branch: string,
  // Stryker disable next-line StringLiteral: equivalent, any fallback but 'worktreeFailed' is gitCommandFailed
  reason: 'gitFailed' | 'worktreeFailed' = 'gitFailed',
): Promise<boolean> {
  const args = ['rev-parse', '--verify', `refs/heads/${branch}`];
  try {
    await runner.text(repoRoot, args);
    return true;
  } catch (e) {
    // Only git's die() (exit 128) prints 'Needed a single revision'; no other error carries that text.
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: equivalent, see above
    if (e instanceof GitProcessError && e.exitCode > 0 && /needed a single revision/i.test(e.stderr)) {
      return false;
    }
    throw runner.fail(e, repoRoot, args, reason);
  }
}

/**
 * How long what git said about a folder stands in for asking it again (headFiles.ts), even with no
 * watched file changed: a net for config git reads from elsewhere (an include, another system config).
 */
const knownMaxAgeMs = 10 * 60_000;

export class Refs implements RefGit {
  /** Folder → what git said about it at its last locate of HEAD (see headFiles.ts). */
  private readonly known = new Map<string, KnownRepository>();

  constructor(
    private readonly runner: GitRunner,
    private readonly now: () => number = Date.now,
  ) {}

  async locate(folder: string, rev: string | undefined, branchPrefix: string): Promise<RepositoryLocation> {
    if (rev?.startsWith('-')) {
      throw new AgentError('invalidRefName', { ref: rev });
    }
    const fromFiles = rev === undefined ? await this.locateFromFiles(folder, branchPrefix) : undefined;
    if (fromFiles) {
      return fromFiles;
    }
    // `--` at the end: what comes before must be a revision, never a path. No --verify (it takes
    // one argument only): parseLocation refuses a rev that gives more than one line, like a range.
    const args = [
      'rev-parse',
      '--show-toplevel',
      '--path-format=absolute',
      '--git-common-dir',
      '--git-path',
      'hooks/post-checkout',
      `${rev ?? 'HEAD'}^{commit}`,
      '--symbolic-full-name',
      `--branches=${branchPrefix}`,
      '--',
    ];
    const result = await this.runner.run(folder, args, { okCodes: 'any' });
    const where = parseLocation(result.stdout);
    const revisionProblem =
      // Stryker disable next-line OptionalChaining: equivalent, an exit 0 always prints the three paths
      result.exitCode === 0 ? where?.sha === undefined : /bad revision|unknown revision/i.test(result.stderr);
    if (where && revisionProblem) {
      const repoRoot = path.normalize(where.repoRoot);
      const why = result.stderr.trim() || 'not a single commit';
      throw rev === undefined
        ? new AgentError('noCommits', { repoRoot }, why)
        : new AgentError('unknownCommit', { ref: rev, repoRoot }, why);
    }
    // Stryker disable next-line LogicalOperator,ConditionalExpression: equivalent, no sha gets here only on exit != 0
    if (!where?.sha || result.exitCode !== 0) {
      // Stryker disable next-line MethodExpression: equivalent, git never fails with only white space on stderr
      const failure = new GitProcessError(result.exitCode, result.stderr.trim() ? result.stderr : result.stdout);
      // Stryker disable next-line StringLiteral: equivalent, any fallback but 'worktreeFailed' is gitCommandFailed
      throw this.runner.fail(failure, folder, args, 'gitFailed');
    }
    const repoRoot = path.normalize(where.repoRoot);
    await this.runner.learnCommonDir([folder, repoRoot], where.commonDir);
    this.runner.learnHookPath(repoRoot, where.hookPath);
    // Stryker disable next-line ConditionalExpression: equivalent, nothing remembered depends on rev
    if (rev === undefined) {
      const commonDir = path.resolve(folder, where.commonDir);
      await this.remember(folder, { repoRoot, commonDir, hookPath: where.hookPath });
    }
    return { repoRoot, sha: where.sha, branches: where.branches };
  }

  /** HEAD read from the files of a repository git located before, while nothing it depends on changed. */
  private async locateFromFiles(folder: string, branchPrefix: string): Promise<RepositoryLocation | undefined> {
    const key = path.resolve(folder);
    const known = this.known.get(key);
    const fresh = known !== undefined && this.now() - known.at <= knownMaxAgeMs;
    if (!fresh || (await signature(key, known)) !== known.signature) {
      this.known.delete(key);
      return undefined;
    }
    const head = await readHead(known, branchPrefix).catch(() => undefined);
    if (!head) {
      return undefined;
    }
    // Its config unchanged, the hook path git gave is still where git would look.
    this.runner.learnHookPath(known.repoRoot, known.hookPath, this.now());
    return { repoRoot: known.repoRoot, sha: head.sha, branches: head.branches };
  }

  private async remember(
    folder: string,
    where: Pick<KnownRepository, 'repoRoot' | 'commonDir' | 'hookPath'>,
  ): Promise<void> {
    const key = path.resolve(folder);
    const at = this.now();
    const gitDir = await gitDirOf(where.repoRoot, where.commonDir).catch(() => undefined);
    if (gitDir === undefined) {
      // Not laid out as headFiles.ts reads it: git is asked each time.
      this.known.delete(key);
      return;
    }
    this.known.set(key, { ...where, gitDir, at, signature: await signature(key, { ...where, gitDir }) });
  }

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
      // Stryker disable next-line StringLiteral: equivalent, any fallback but 'worktreeFailed' is gitCommandFailed
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
      // Stryker disable next-line StringLiteral: equivalent, any fallback but 'worktreeFailed' is gitCommandFailed
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
        // Stryker disable next-line StringLiteral: equivalent, any fallback but 'worktreeFailed' is gitCommandFailed
        throw this.runner.fail(e, repoRoot, args, 'gitFailed');
      }
    });
  }

  async listRefs(repoRoot: string, prefixes: readonly string[]): Promise<GitRefInfo[]> {
    const format = '--format=%(refname)%00%(objectname)%00%(parent)';
    // Stryker disable next-line StringLiteral: equivalent, callers pass refs/… prefixes only; '' matches no ref
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
