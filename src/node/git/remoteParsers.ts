/** Parsers for what remotes.ts reads. */
import type { GitRemote } from '../../core/git';

/**
 * `git config -z --get-regexp ^remote\..*\.url$`: entries `remote.<name>.url\n<url>\0`. A remote
 * with several urls keeps its first (the one git fetches from and pushes to by default).
 */
export function parseRemoteUrls(output: string): GitRemote[] {
  const remotes: GitRemote[] = [];
  for (const entry of output.split('\0')) {
    const newline = entry.indexOf('\n');
    const key = newline < 0 ? entry : entry.slice(0, newline);
    const name = /^remote\.(.+)\.url$/.exec(key)?.[1];
    if (name !== undefined && newline >= 0 && !remotes.some((r) => r.name === name)) {
      remotes.push({ name, url: entry.slice(newline + 1) });
    }
  }
  return remotes;
}
