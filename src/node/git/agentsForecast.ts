/**
 * Forecast Conflicts' git part (LandingGit.forecastAgents): each branch merged into `into`, and each
 * pair of branches as they would be once both are merged into `into` (core/landing/conflictForecast.ts
 * says why a merge of the two tips is not that when one branch started before `into` moved on).
 * Step 1, one merge-tree batch: every pair of tips and each branch against `into`. A pair whose tips
 * merge cleanly keeps that answer (for branches that both contain `into` it is the same merge).
 * Step 2, only for the pairs whose tips conflict: each of their branches merged into `into` becomes a
 * commit (parents `into` and the branch, the tree step 1 made, conflict markers included), all of
 * them written by one hash-object and referenced by nothing, so git's gc drops them; then those
 * pairs are forecast again, between these commits, in one more batch.
 */
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentsForecast, MergeForecast } from '../../core/git';
import type { MergeForecaster } from './forecast';
import type { TreeForecast } from './landingParsers';
import type { GitRunner } from './runner';

function toForecast({ clean, conflicts }: TreeForecast): MergeForecast {
  return { clean, conflicts };
}

export async function forecastAgents(
  forecaster: MergeForecaster,
  runner: GitRunner,
  repoRoot: string,
  into: string,
  branches: readonly string[],
): Promise<AgentsForecast> {
  if (branches.length === 0) {
    return { landing: [], pairs: [] };
  }
  const [intoSha, ...tips] = await forecaster.resolveNames(repoRoot, [into, ...branches]);
  const pairIndex = tips.flatMap((_, i) => tips.slice(i + 1).map((__, k): [number, number] => [i, i + 1 + k]));
  const first = await forecaster.forecastCommits(repoRoot, [
    ...pairIndex.map(([i, j]): [string, string] => [tips[i], tips[j]]),
    ...tips.map((tip): [string, string] => [intoSha, tip]),
  ]);
  const pairs = first.slice(0, pairIndex.length);
  const landing = first.slice(pairIndex.length);
  const suspects = pairIndex.flatMap((_, k) => (pairs[k].clean ? [] : [k]));
  if (suspects.length > 0) {
    const involved = [...new Set(suspects.flatMap((k) => pairIndex[k]))];
    const commits = await writeCommits(
      runner,
      repoRoot,
      involved.map((i) => landedCommit(treeOf(runner, repoRoot, landing[i], branches[i]), [intoSha, tips[i]])),
    );
    /** Branch index → its landed commit (set for every involved branch). */
    // Stryker disable next-line ArrayDeclaration: equivalent, every index read below is set first
    const landed: string[] = [];
    involved.forEach((i, n) => (landed[i] = commits[n]));
    const again = await forecaster.forecastCommits(
      repoRoot,
      suspects.map((k): [string, string] => [landed[pairIndex[k][0]], landed[pairIndex[k][1]]]),
    );
    suspects.forEach((k, n) => (pairs[k] = again[n]));
  }
  return { landing: landing.map(toForecast), pairs: pairs.map(toForecast) };
}

function treeOf(runner: GitRunner, repoRoot: string, forecast: TreeForecast, branch: string): string {
  if (forecast.tree === undefined) {
    // Only a trial merge (git < 2.38) can end without one, when staging its result failed.
    const error = new Error(`no tree for the merge of ${branch}`);
    const args = ['merge', branch];
    // Stryker disable next-line StringLiteral: equivalent, any fallback but 'worktreeFailed' is gitCommandFailed
    throw runner.fail(error, repoRoot, args, 'gitFailed');
  }
  return forecast.tree;
}

/** A commit object's text; one identity and the epoch as its date, so equal inputs give one object. */
export function landedCommit(tree: string, parents: readonly string[]): string {
  const who = 'Parallel Agents <forecast@parallel-agents.invalid> 0 +0000';
  const lines = [`tree ${tree}`, ...parents.map((p) => `parent ${p}`), `author ${who}`, `committer ${who}`];
  return `${lines.join('\n')}\n\nparallel-agents forecast\n`;
}

/** Commit objects written in one hash-object, from files (`--no-filters`: no attribute may rewrite them). */
export async function writeCommits(runner: GitRunner, repoRoot: string, bodies: readonly string[]): Promise<string[]> {
  const args = ['hash-object', '-w', '-t', 'commit', '--no-filters'];
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pa-landed-'));
  try {
    if (/[\n\r]/.test(dir)) {
      // A line of --stdin-paths cannot name it: one process per commit, from stdin.
      return await Promise.all(bodies.map((input) => runner.out(repoRoot, [...args, '--stdin'], { input })));
    }
    const files = bodies.map((_, i) => path.join(dir, `${i}`));
    await Promise.all(files.map((file, i) => fs.writeFile(file, bodies[i])));
    const input = files.map((f) => `${f}\n`).join('');
    const shas = (await runner.out(repoRoot, [...args, '--stdin-paths'], { input })).split('\n');
    if (shas.length !== bodies.length || !shas.every((sha) => /^[0-9a-f]{40,64}$/.test(sha))) {
      const error = new Error(`unexpected answer: ${shas.join(' ')}`);
      // Stryker disable next-line StringLiteral: equivalent, any fallback but 'worktreeFailed' is gitCommandFailed
      throw runner.fail(error, repoRoot, args, 'gitFailed');
    }
    return shas;
  } finally {
    // Stryker disable next-line BooleanLiteral: equivalent, force only matters for a folder already gone
    await fs.rm(dir, { recursive: true, force: true });
  }
}
