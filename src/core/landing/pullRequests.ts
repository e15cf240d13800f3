/**
 * Create Pull Request, the parts that need no process: which remote an agent's branch is pushed to,
 * the web page where a pull (or merge) request for it is opened, which way the request is made, and
 * credentials kept out of every text shown or logged.
 */
import { AgentError } from '../errors';
import type { GitRemote, RemoteGit } from '../git';

/** A repository's web home: `https://github.com/o/r`, with the kind of host that serves it. */
export interface WebRepository {
  /** No trailing slash, no `.git`, no credentials. */
  readonly url: string;
  readonly host: 'github' | 'gitlab';
}

/**
 * Hides the credentials of URLs in `text` (git's stderr, a remote URL): every user part of an
 * http(s) URL (a bare token is common there), and a `user:password` part of any other URL.
 */
export function redact(text: string): string {
  return text
    .replace(/\b(https?:\/\/)[^/\s@]+@/gi, '$1***@')
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/\s@:]*:[^/\s@]*@/gi, '$1***@');
}

/**
 * The remote to push to: the branch's upstream remote when it is one of `remotes`, else `origin`,
 * else the only remote; undefined when there is none, or several and none of them is chosen so.
 */
export function chooseRemote(remotes: readonly GitRemote[], upstream?: string): GitRemote | undefined {
  const named = (name?: string) => remotes.find((r) => r.name === name);
  return named(upstream) ?? named('origin') ?? (remotes.length === 1 ? remotes[0] : undefined);
}

/** The remote `branch` is pushed to (chooseRemote); noRemote or remoteAmbiguous when there is no answer. */
export async function pushTarget(
  git: Pick<RemoteGit, 'remotes' | 'upstreamRemote'>,
  repoRoot: string,
  branch: string,
): Promise<GitRemote> {
  const remotes = await git.remotes(repoRoot);
  const remote = chooseRemote(remotes, await git.upstreamRemote(repoRoot, branch));
  if (remote) {
    return remote;
  }
  throw remotes.length === 0
    ? new AgentError('noRemote', { branch, repoRoot })
    : new AgentError('remoteAmbiguous', { branch, remotes: remotes.map((r) => r.name) });
}

/** Host and repository path of a remote URL (https, http, ssh://, git://, scp-like `git@host:o/r.git`). */
function hostAndPath(remoteUrl: string): { scheme: string; host: string; path: string } | undefined {
  const url = remoteUrl.trim();
  const withScheme = /^([a-z][a-z0-9+.-]*):\/\/(?:[^/@]*@)?([^/:]+)(?::\d*)?\/(.+)$/i.exec(url);
  if (withScheme) {
    const scheme = withScheme[1].toLowerCase();
    return ['https', 'http', 'ssh', 'git', 'git+ssh', 'ssh+git'].includes(scheme)
      ? { scheme: scheme === 'http' ? 'http' : 'https', host: withScheme[2], path: withScheme[3] }
      : undefined;
  }
  // scp-like syntax: only when no slash comes before the colon (else it is a local path).
  const scp = /^(?:[^/@:]+@)?([^/:]+):(?!\/\/)(.+)$/.exec(url);
  if (scp && !/^[a-z]$/i.test(scp[1])) {
    return { scheme: 'https', host: scp[1], path: scp[2] };
  }
  return undefined;
}

/** The web home of a GitHub or GitLab remote; undefined for other hosts and local paths. */
export function webRepository(remoteUrl: string): WebRepository | undefined {
  const parts = hostAndPath(remoteUrl);
  if (!parts) {
    return undefined;
  }
  const host = parts.host.toLowerCase();
  const kind = /(^|\.)github\./.test(host) ? 'github' : /(^|\.)gitlab\./.test(host) ? 'gitlab' : undefined;
  const repoPath = parts.path
    .replace(/^\/+/, '')
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
  if (!kind || repoPath === '' || repoPath.split('/').length < 2) {
    return undefined;
  }
  // GitHub's ssh-over-443 host serves the same repositories as github.com.
  const webHost = host === 'ssh.github.com' ? 'github.com' : host;
  return { url: `${parts.scheme}://${webHost}/${repoPath}`, host: kind };
}

const segments = (branch: string) => branch.split('/').map(encodeURIComponent).join('/');

/**
 * The page that opens a pull request (GitHub) or merge request (GitLab) of `branch`, into `base`
 * when given (else the repository's default branch); undefined when the host is not known.
 */
export function compareUrl(remoteUrl: string, branch: string, base?: string): string | undefined {
  const repo = webRepository(remoteUrl);
  if (!repo) {
    return undefined;
  }
  if (repo.host === 'github') {
    return `${repo.url}/compare/${base ? `${segments(base)}...` : ''}${segments(branch)}?expand=1`;
  }
  const target = base ? `&merge_request[target_branch]=${encodeURIComponent(base)}` : '';
  return `${repo.url}/-/merge_requests/new?merge_request[source_branch]=${encodeURIComponent(branch)}${target}`;
}

/** How the pull request is made once the branch is pushed. */
export type PullRequestRoute =
  /** The GitHub Pull Requests extension's own create view. */
  | { readonly kind: 'extension' }
  /** `gh pr create` with the executable found on PATH. */
  | { readonly kind: 'gh'; readonly gh: string }
  /** The host's compare page, copied to the clipboard. */
  | { readonly kind: 'compareUrl'; readonly url: string }
  /** No way known: only the push is reported. */
  | { readonly kind: 'pushedOnly' };

export interface RouteInputs {
  readonly remoteUrl: string;
  readonly branch: string;
  readonly base?: string;
  /** The GitHub Pull Requests extension is installed and its create command registered. */
  readonly prExtension: boolean;
  /** Path of `gh` on PATH, when found. */
  readonly gh?: string;
}

/**
 * The GitHub Pull Requests extension, else gh, for a GitHub remote; else the compare page of a
 * GitHub or GitLab remote; else nothing but the push.
 */
export function choosePullRequestRoute(inputs: RouteInputs): PullRequestRoute {
  const repo = webRepository(inputs.remoteUrl);
  if (repo?.host === 'github' && inputs.prExtension) {
    return { kind: 'extension' };
  }
  if (repo?.host === 'github' && inputs.gh) {
    return { kind: 'gh', gh: inputs.gh };
  }
  const url = compareUrl(inputs.remoteUrl, inputs.branch, inputs.base);
  return url ? { kind: 'compareUrl', url } : { kind: 'pushedOnly' };
}

/** The last https URL gh printed (the new pull request's page). */
export function pullRequestUrlOf(ghOutput: string): string | undefined {
  const urls = ghOutput.match(/https?:\/\/\S+/g);
  return urls?.[urls.length - 1];
}

/** What `gh pr create` is given. */
export interface PullRequestRequest {
  readonly head: string;
  readonly base?: string;
  readonly title: string;
  readonly body: string;
}

/** Longest body sent: GitHub refuses bodies over 65536 characters. */
const maxBody = 60_000;

/** gh's argv (after the executable): every value one element, so no prompt or branch is ever parsed by a shell. */
export function ghCreateArgs(request: PullRequestRequest): string[] {
  const body = request.body.length > maxBody ? `${request.body.slice(0, maxBody)}\n…` : request.body;
  const base = request.base ? ['--base', request.base] : [];
  return ['pr', 'create', '--head', request.head, ...base, '--title', request.title, '--body', body];
}
