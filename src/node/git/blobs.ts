/**
 * Many files at one commit in one git process: `git cat-file --batch` fed `<sha>:<path>` a line,
 * where a `git show` each would start a process per file (a spawn costs 20-80 ms on a busy
 * machine; the all-changes diff of an agent asks for 20 files at once).
 */
import { AgentError } from '../../core/errors';
import type { GitRunner } from './runner';

/**
 * The objects of a `git cat-file --batch` answer to `count` names, in order: each object's bytes, or
 * undefined for a name that is missing, ambiguous or not a blob (a folder). Answers have the form
 * `<oid> <type> <size>\n<bytes>\n` or `<name> missing\n` (`ambiguous` likewise).
 */
export function parseCatFileBatch(stdout: Buffer, count: number): (Buffer | undefined)[] {
  const out: (Buffer | undefined)[] = [];
  let at = 0;
  while (out.length < count) {
    const end = stdout.indexOf(10, at);
    if (end < 0) {
      throw new AgentError('catFileOutputUnexpected', { answer: out.length + 1, count });
    }
    const header = stdout.subarray(at, end).toString('utf8');
    at = end + 1;
    const found = /^[0-9a-f]{40,64} (\w+) (\d+)$/.exec(header);
    if (!found) {
      // `<name> missing` / `<name> ambiguous`: the name may hold spaces, the last word says which.
      if (!/ (missing|ambiguous)$/.test(header)) {
        throw new AgentError('catFileOutputUnexpected', { answer: out.length + 1, count }, header);
      }
      out.push(undefined);
      continue;
    }
    const size = Number.parseInt(found[2], 10);
    out.push(found[1] === 'blob' ? stdout.subarray(at, at + size) : undefined);
    at += size + 1;
  }
  return out;
}

/**
 * The bytes of each of `paths` (relative to the repository) at `sha`, undefined where it does not
 * exist there. A path holding a line break cannot be named on a line: it is read with
 * `show(path)` instead. Rejects when `sha` names no commit, as `git show` does.
 */
export async function showFiles(
  runner: GitRunner,
  repoRoot: string,
  sha: string,
  paths: readonly string[],
  show: (path: string) => Promise<Uint8Array | undefined>,
): Promise<(Uint8Array | undefined)[]> {
  const lined = paths.filter((p) => !/[\r\n]/.test(p));
  const batch =
    lined.length === 0
      ? []
      : parseCatFileBatch(
          await runner.buffer(repoRoot, ['cat-file', '--batch'], {
            input: lined.map((p) => `${sha}:${p}\n`).join(''),
          }),
          lined.length,
        );
  if (batch.some((b) => b === undefined)) {
    // A missing file, or a commit that does not exist: only the second is an error.
    await runner.run(repoRoot, ['rev-parse', '--verify', '--end-of-options', `${sha}^{commit}`]);
  }
  const byPath = new Map(lined.map((p, i) => [p, batch[i]]));
  return Promise.all(paths.map((p) => (byPath.has(p) ? byPath.get(p) : show(p))));
}
