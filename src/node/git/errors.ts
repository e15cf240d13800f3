/**
 * Failures of git processes and their classification: git's stderr becomes an AgentError with a
 * code and data (the text is made in ui/errorMessages.ts); stderr itself is kept as the detail.
 * Classification reads git's messages, so every process runs with LC_MESSAGES=C (see process.ts).
 */
import { AgentError, isDiskFull, type AgentErrorReason } from '../../core/errors';

/** A git process that exited outside its expected codes, or could not be started. */
export class GitProcessError extends Error {
  constructor(
    readonly exitCode: number,
    readonly stderr: string,
  ) {
    super(stderr.trim() || `git exited with code ${exitCode}`);
    this.name = GitProcessError.name;
  }

  /** Node reports a failed spawn as a negative errno exit code with the error's message on stderr. */
  get notFound(): boolean {
    return this.exitCode < 0 && /\bspawn\b.*\bENOENT\b/.test(this.stderr);
  }
}

export type FailureReason = Extract<AgentErrorReason, 'worktreeFailed' | 'gitFailed'>;

export function stderrOf(e: unknown): string {
  if (e instanceof GitProcessError) {
    return e.stderr.trim();
  }
  return e instanceof Error ? e.message : String(e);
}

/**
 * Maps a failure of `git <args>` run in `cwd` to an AgentError: a missing git binary, a full disk,
 * a folder that is not (or no longer) a repository, or else `fallback` with git's stderr as detail.
 */
export function toAgentError(
  e: unknown,
  binary: string,
  cwd: string,
  args: readonly string[],
  fallback: FailureReason,
): AgentError {
  if (AgentError.is(e)) {
    return e;
  }
  const detail = stderrOf(e);
  if (e instanceof GitProcessError && e.notFound) {
    return new AgentError('gitNotFound', { binary }, detail);
  }
  if (isDiskFull(detail)) {
    return new AgentError('gitDiskFull', { cwd }, detail);
  }
  if (/must be run in a work tree/i.test(detail)) {
    return new AgentError('bareRepository', { cwd }, detail);
  }
  if (/not a git repository/i.test(detail)) {
    return new AgentError('notARepository', { folder: cwd }, detail);
  }
  const command = args[0] === 'worktree' ? `git worktree ${args[1]}` : `git ${args[0]}`;
  const code = fallback === 'worktreeFailed' ? 'worktreeCommandFailed' : 'gitCommandFailed';
  return new AgentError(code, { command, cwd }, detail);
}
