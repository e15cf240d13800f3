/** Remotes and pushing a branch to one: RemoteGit on the real git binary. */
import type { GitRemote, RemoteGit } from '../../core/git';
import { AgentError } from '../../core/errors';
import { redact } from '../../core/landing';
import { GitProcessError } from './errors';
import { parseRemoteUrls } from './remoteParsers';
import type { GitRunner } from './runner';

/**
 * What a push may need of the host's environment to reach the remote (an ssh agent, the user's own
 * ssh command), beyond what every git process gets. Credential helpers need only HOME and PATH.
 */
const pushVariables = ['SSH_AUTH_SOCK', 'GIT_SSH', 'GIT_SSH_COMMAND', 'GIT_SSH_VARIANT'];

export function pushEnvironment(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = { GIT_TERMINAL_PROMPT: '0' };
  for (const name of pushVariables) {
    const value = source[name];
    if (value !== undefined) {
      env[name] = value;
    }
  }
  return env;
}

export class Remotes implements RemoteGit {
  constructor(private readonly runner: GitRunner) {}

  async remotes(repoRoot: string): Promise<GitRemote[]> {
    // Exit 1: no remote is configured.
    const args = ['config', '-z', '--get-regexp', '^remote\\..*\\.url$'];
    return parseRemoteUrls((await this.runner.run(repoRoot, args, { okCodes: [0, 1] })).stdout);
  }

  async upstreamRemote(repoRoot: string, branch: string): Promise<string | undefined> {
    const args = ['for-each-ref', '--format=%(upstream:remotename)', '--', `refs/heads/${branch}`];
    return (await this.runner.out(repoRoot, args)) || undefined;
  }

  push(repoRoot: string, remote: string, branch: string, signal?: AbortSignal): Promise<void> {
    const args = ['push', '--set-upstream', '--', remote, `refs/heads/${branch}:refs/heads/${branch}`];
    return this.runner.write(repoRoot, async () => {
      try {
        await this.runner.exec(repoRoot, args, { env: pushEnvironment(), signal });
      } catch (e) {
        // git's words name the remote's URL, credentials and all: they are logged and shown without them.
        const hidden = e instanceof GitProcessError ? new GitProcessError(e.exitCode, redact(e.stderr)) : e;
        throw this.runner.fail(hidden, repoRoot, ['push'], 'gitFailed');
      }
    });
  }

  fetchPullRequest(repoRoot: string, remote: string, number: number): Promise<string> {
    // Read from a private ref, not FETCH_HEAD, which VS Code's autofetch rewrites at any time; gone once read.
    const temp = `refs/parallel-agents/fetched/pull-${number}`;
    const args = ['fetch', '--no-tags', '--', remote, `+refs/pull/${number}/head:${temp}`];
    return this.runner.write(repoRoot, async () => {
      try {
        await this.runner.exec(repoRoot, args, { env: pushEnvironment() });
        const sha = await this.runner.text(repoRoot, ['rev-parse', '--verify', `${temp}^{commit}`]);
        return sha.trim();
      } catch (e) {
        const words = e instanceof GitProcessError ? redact(e.stderr) : '';
        if (/couldn't find remote ref/i.test(words)) {
          throw new AgentError('pullRequestNotFound', { number, remote }, words.trim());
        }
        const hidden = e instanceof GitProcessError ? new GitProcessError(e.exitCode, words) : e;
        throw this.runner.fail(hidden, repoRoot, ['fetch'], 'gitFailed');
      } finally {
        await this.runner.exec(repoRoot, ['update-ref', '-d', temp]).catch(() => undefined);
      }
    });
  }
}
