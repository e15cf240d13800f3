/**
 * Merge forecasts without touching any worktree: `git merge-tree --write-tree` (git >= 2.38), many
 * pairs in one process with `--stdin` (git >= 2.39); older git gets a trial merge in a temporary
 * detached worktree that is removed afterwards.
 */
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentError } from '../../core/errors';
import { parsePathList } from './changeParsers';
import { parseCommitCheck, parseMergeTree, parseMergeTreeBatch, type TreeForecast } from './landingParsers';
import { atLeast, type GitRunner } from './runner';

/** What the git binary offers for forecasting: merge-tree --stdin, merge-tree --write-tree, or neither. */
export type MergeTreeSupport = 'stdin' | 'writeTree' | 'none';

type Pair = readonly [string, string];

const mergeTreeArgs = ['merge-tree', '--write-tree', '--name-only', '-z', '--no-messages'];

export class MergeForecaster {
  private detected?: Promise<MergeTreeSupport>;

  constructor(
    private readonly runner: GitRunner,
    private readonly forced?: MergeTreeSupport,
  ) {}

  /**
   * One forecast per pair, in order. `holdingQueue`: the caller already runs on the repository's
   * write queue (which the trial merge needs, for its worktree add and remove).
   */
  async forecast(repoRoot: string, pairs: readonly Pair[], holdingQueue = false): Promise<TreeForecast[]> {
    if (pairs.length === 0) {
      return [];
    }
    const support = await this.support(repoRoot);
    if (support === 'writeTree' || (support === 'stdin' && pairs.length === 1)) {
      return Promise.all(pairs.map((pair) => this.single(repoRoot, pair)));
    }
    return this.forecastCommits(repoRoot, await this.resolve(repoRoot, pairs), holdingQueue);
  }

  /** Like forecast, for pairs of full shas (resolveNames): the names are not looked up again. */
  async forecastCommits(repoRoot: string, pairs: readonly Pair[], holdingQueue = false): Promise<TreeForecast[]> {
    if (pairs.length === 0) {
      return [];
    }
    const support = await this.support(repoRoot);
    if (support === 'writeTree') {
      return Promise.all(pairs.map((pair) => this.single(repoRoot, pair)));
    }
    if (support === 'stdin') {
      return this.batch(repoRoot, pairs);
    }
    const trial = () => this.trialMerges(repoRoot, pairs);
    return holdingQueue ? trial() : this.runner.write(repoRoot, trial);
  }

  private support(repoRoot: string): Promise<MergeTreeSupport> {
    if (this.forced) {
      return Promise.resolve(this.forced);
    }
    this.detected ??= this.runner.version(repoRoot).then(
      // Stryker disable next-line StringLiteral: equivalent, any answer but 'stdin' or 'writeTree' means trial merges
      (v) => (atLeast(v, [2, 39]) ? 'stdin' : atLeast(v, [2, 38]) ? 'writeTree' : 'none'),
      (e: unknown) => {
        this.detected = undefined;
        throw e;
      },
    );
    return this.detected;
  }

  /**
   * Full shas, so "HEAD" means the repository's HEAD in any worktree, names never break a --stdin
   * line, and a bad name is reported by name. A single merge-tree resolves names itself.
   */
  async resolveNames(repoRoot: string, names: readonly string[]): Promise<string[]> {
    // Such a name would break the lines cat-file reads: refused by name, git never asked.
    const bad = names.find((n) => n === '' || /[\n\r]/.test(n));
    if (bad !== undefined) {
      throw new AgentError('unknownCommit', { ref: bad, repoRoot });
    }
    const shas = parseCommitCheck(
      await this.runner.out(repoRoot, ['cat-file', '--batch-check'], {
        input: names.map((n) => `${n}^{commit}\n`).join(''),
      }),
      names,
    );
    const missing = names.findIndex((_, i) => !shas[i]);
    if (missing >= 0) {
      throw new AgentError('unknownCommit', { ref: names[missing], repoRoot });
    }
    return shas as string[];
  }

  private async resolve(repoRoot: string, pairs: readonly Pair[]): Promise<Pair[]> {
    const names = [...new Set(pairs.flat())];
    const shas = await this.resolveNames(repoRoot, names);
    const byName = new Map(names.map((n, i) => [n, shas[i]]));
    return pairs.map(([ours, theirs]) => [byName.get(ours) as string, byName.get(theirs) as string]);
  }

  private async single(repoRoot: string, [ours, theirs]: Pair): Promise<TreeForecast> {
    const args = [...mergeTreeArgs, ours, theirs];
    const result = await this.runner.run(repoRoot, args, { okCodes: [0, 1] });
    const forecast = parseMergeTree(result.stdout, result.exitCode);
    // Exit 1 also means "not something we can merge": only a tree in the answer makes it a forecast.
    if (!forecast.tree || !/^[0-9a-f]{40,64}$/.test(forecast.tree)) {
      throw this.runner.fail(
        new Error(result.stderr.trim() || `no tree in the answer of git merge-tree ${ours} ${theirs}`),
        repoRoot,
        args,
        // Stryker disable next-line StringLiteral: equivalent, any fallback but 'worktreeFailed' is gitCommandFailed
        'gitFailed',
      );
    }
    return forecast;
  }

  private async batch(repoRoot: string, pairs: readonly Pair[]): Promise<TreeForecast[]> {
    const args = [...mergeTreeArgs, '--stdin'];
    const result = await this.runner.run(repoRoot, args, { input: pairs.map(([a, b]) => `${a} ${b}\n`).join('') });
    try {
      return parseMergeTreeBatch(result.stdout, pairs.length);
    } catch (e) {
      throw new AgentError('mergeTreeUnreadable', { repoRoot }, e instanceof Error ? e.message : String(e));
    }
  }

  /** git < 2.38: real merges in one temporary detached worktree, reset between pairs, always removed. */
  private async trialMerges(repoRoot: string, pairs: readonly Pair[]): Promise<TreeForecast[]> {
    const parent = await fs.mkdtemp(path.join(os.tmpdir(), 'pa-trial-'));
    const dir = path.join(parent, 'worktree');
    // No hooks (a forecast runs nothing of the repository's), no rerere records, no autostash.
    const quiet = [
      '-c',
      // Stryker disable next-line StringLiteral: equivalent, the trial folder itself holds no hook either
      `core.hooksPath=${path.join(parent, 'no-hooks')}`,
      '-c',
      'rerere.enabled=false',
      '-c',
      'merge.autoStash=false',
    ];
    const forecasts: TreeForecast[] = [];
    try {
      await this.runner.run(repoRoot, [...quiet, 'worktree', 'add', '--detach', '--quiet', dir, pairs[0][0]], {
        reason: 'worktreeFailed',
      });
      for (const [ours, theirs] of pairs) {
        await this.runner.run(dir, [...quiet, 'reset', '--hard', '--quiet', ours]);
        await this.runner.run(dir, ['clean', '-ffdxq']);
        forecasts.push(await this.trialMerge(dir, quiet, theirs));
      }
      return forecasts;
    } finally {
      // Pruned after its folder is gone: even a worktree git failed to remove then leaves no registration.
      await this.quietly(repoRoot, dir, ['worktree', 'remove', '--force', '--force', dir]);
      // Stryker disable next-line BooleanLiteral: equivalent, the folder mkdtemp made is there: force changes nothing
      await fs.rm(parent, { recursive: true, force: true });
      await this.quietly(repoRoot, dir, ['worktree', 'prune']);
    }
  }

  private async trialMerge(dir: string, quiet: string[], theirs: string): Promise<TreeForecast> {
    const args = [...quiet, 'merge', '--no-commit', '--no-ff', '--quiet', theirs];
    const merge = await this.runner.run(dir, args, { okCodes: [0, 1] });
    if (merge.exitCode === 0) {
      return { clean: true, conflicts: [], tree: await this.runner.out(dir, ['write-tree']) };
    }
    const conflicts = parsePathList(
      (await this.runner.run(dir, ['diff', '--name-only', '--no-relative', '--diff-filter=U', '-z'])).stdout,
    );
    if (conflicts.length === 0) {
      const said = merge.stderr.trim() || merge.stdout.trim();
      // Stryker disable next-line StringLiteral: equivalent, any fallback but 'worktreeFailed' is gitCommandFailed
      throw this.runner.fail(new Error(said), dir, args.slice(quiet.length), 'gitFailed');
    }
    // The merged tree with its conflict markers, as merge-tree gives it (forecastAgents merges from it).
    const any = { okCodes: 'any' } as const;
    const staged = await this.runner.exec(dir, ['add', '--all'], any);
    const tree = staged.exitCode === 0 ? await this.runner.exec(dir, ['write-tree'], any) : undefined;
    return { clean: false, conflicts, tree: tree?.exitCode === 0 ? tree.stdout.trim() : undefined };
  }

  /** Runs a step of removing the trial worktree `dir`; a failure is logged, not thrown. */
  private async quietly(repoRoot: string, dir: string, args: readonly string[]): Promise<void> {
    await this.runner.exec(repoRoot, args).catch((e: unknown) => {
      this.runner.logger?.warn(
        `[Git] removing the trial-merge worktree ${dir}: git ${args.slice(0, 2).join(' ')} failed — ${String(e)}`,
      );
    });
  }
}
