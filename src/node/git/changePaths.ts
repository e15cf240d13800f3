/** The change set of some paths only: what an incremental refresh re-examines. */
import type { ChangedFile } from '../../core/agent';
import { sniffUntracked } from './binarySniffer';
import { buildChangeSet, parsePathList } from './changeParsers';
import type { GitRunner } from './runner';

/** `:(literal)` keeps `*`, `?`, `[` and a leading `:` in a file name from being read as pathspec magic. */
export function literalPathspecs(paths: readonly string[]): string[] {
  return paths.map((p) => `:(literal)${p}`);
}

/**
 * As Changes.changeSet, limited to `paths` (relative to `cwd`; a folder covers what is under it).
 * Renames are paired only among the given paths, so the caller passes every rename candidate.
 */
export async function changeSetOf(
  runner: GitRunner,
  cwd: string,
  baseSha: string,
  paths: readonly string[],
): Promise<ChangedFile[]> {
  if (paths.length === 0) {
    return [];
  }
  const specs = literalPathspecs(paths);
  const diffArgs = ['diff', '--raw', '--numstat', '-z', '-M', '--relative', '--no-ext-diff', '--no-textconv'];
  const [diff, untracked] = await Promise.all([
    runner.run(cwd, [...diffArgs, baseSha, '--', ...specs]),
    runner.run(cwd, ['ls-files', '--others', '--exclude-standard', '-z', '--', ...specs]),
  ]);
  const content = await sniffUntracked(cwd, parsePathList(untracked.stdout));
  return buildChangeSet({ diff: diff.stdout, untracked: untracked.stdout }, content.binary, content.lines);
}
