/**
 * Runs one git process through simple-git with a minimal environment, and turns its failures
 * into AgentErrors. Classification reads git's messages, so every process runs with
 * LC_MESSAGES=C (and no LANGUAGE/LC_ALL that would override it).
 */
import { GitConstructError, GitError, GitPluginError, simpleGit } from 'simple-git';
import { AgentError, type AgentErrorReason } from '../core/errors';

/** A git process that exited non-zero or could not be started. */
export class GitProcessError extends GitError {
  constructor(
    readonly exitCode: number,
    readonly stderr: string,
  ) {
    super(undefined, stderr.trim() || `git exited with code ${exitCode}`);
  }

  /** Node reports a failed spawn as a negative errno exit code with the error's stack on stderr. */
  get notFound(): boolean {
    return this.exitCode < 0 && /\bspawn\b.*\bENOENT\b/.test(this.stderr);
  }
}

// Names compared upper-case, so Windows' "Path" and "SystemRoot" pass too.
const inherited = new Set([
  'PATH',
  'HOME',
  'USERPROFILE',
  'HOMEDRIVE',
  'HOMEPATH',
  'SYSTEMROOT',
  'COMSPEC',
  'PATHEXT',
  'TEMP',
  'TMP',
  'TMPDIR',
  'XDG_CONFIG_HOME',
  'APPDATA',
  'LOCALAPPDATA',
  'PROGRAMDATA',
  'USER',
  'USERNAME',
  'LOGNAME',
  'LANG',
  'LC_CTYPE',
]);

/**
 * The environment of every git process: what git needs to find itself, its config and a temp
 * folder. No GIT_* variable of the host leaks in (VS Code sets several). GIT_OPTIONAL_LOCKS=0
 * applies to all commands: it only stops the optional index refresh of reads, never a write's lock.
 */
export function gitEnvironment(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(source)) {
    if (value !== undefined && inherited.has(key.toUpperCase())) {
      env[key] = value;
    }
  }
  env.LC_MESSAGES = 'C';
  env.GIT_OPTIONAL_LOCKS = '0';
  return env;
}

export interface GitRunner {
  text(cwd: string, args: string[]): Promise<string>;
  buffer(cwd: string, args: string[]): Promise<Buffer>;
}

/** Caps concurrent tasks; a finishing task hands its slot straight to the next waiting one. */
class Limiter {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running < this.max) {
      this.running++;
    } else {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) {
        next();
      } else {
        this.running--;
      }
    }
  }
}

/** Runs git commands in a folder, at most `maxConcurrent` processes at once over all folders. */
export function createGitRunner(binary: string, env: Record<string, string>, maxConcurrent: number): GitRunner {
  const limiter = new Limiter(Math.max(1, maxConcurrent));
  const errors = (error: Buffer | Error | undefined, result: { exitCode: number; stdErr: Buffer[] }) =>
    result.exitCode === 0 ? error : new GitProcessError(result.exitCode, Buffer.concat(result.stdErr).toString('utf8'));
  const git = (cwd: string) => simpleGit({ baseDir: cwd, binary, errors, allowEnvironment: ['GIT_OPTIONAL_LOCKS'] }).env(env);
  return {
    text: (cwd, args) => limiter.run(async () => git(cwd).raw(args)),
    buffer: (cwd, args) => limiter.run(async () => git(cwd).showBuffer(args)),
  };
}

export type FailureReason = Extract<AgentErrorReason, 'worktreeFailed' | 'gitFailed'>;

export function stderrOf(e: unknown): string {
  if (e instanceof GitProcessError) {
    return e.stderr.trim();
  }
  return e instanceof Error ? e.message : String(e);
}

function notARepositoryMessage(folder: string): string {
  return `${folder} is not inside a git repository — open a folder that is a git repository, or run git init`;
}

/**
 * Maps a failure of `git <args>` run in `cwd` to an AgentError: a missing git binary, a folder
 * that is not (or no longer) a repository, or else `fallback` with git's stderr as detail.
 */
export function toAgentError(e: unknown, binary: string, cwd: string, args: readonly string[], fallback: FailureReason): AgentError {
  if (AgentError.is(e)) {
    return e;
  }
  const detail = stderrOf(e);
  if ((e instanceof GitProcessError && e.notFound) || (e instanceof GitPluginError && e.plugin === 'binary')) {
    return new AgentError('gitNotFound', `Git was not found (looked for "${binary}"). Install git, or set the path to it in the settings.`, detail);
  }
  if (e instanceof GitConstructError || /not a git repository|must be run in a work tree/i.test(detail)) {
    return new AgentError('notGitRepository', notARepositoryMessage(cwd), detail);
  }
  const command = args[0] === 'worktree' ? `git worktree ${args[1]}` : `git ${args[0]}`;
  return new AgentError(fallback, `${command} failed in ${cwd}`, detail);
}
