// npm run mutate [-- <group> | -- --mutate <file>[,<file>…]]: StrykerJS over the code that guards the
// user's work. With no argument, every file of stryker.config.json against the whole unit and
// real-git suite (about an hour on two idle cores, and more as the git tests grow). A group runs its
// files against the unit tests and the real-git test files that exercise them, which makes a run
// fit a working session: a lower bound, since the other git tests could only kill more. Each group
// keeps its own incremental results and report (reports/mutation-<group>/index.html).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** group → files mutated and the real-git test files (out/test/git/<name>.test.js) run against them. */
const groups = {
  landing: {
    mutate: [
      'src/core/landing/agentLanding.ts',
      'src/core/landing/changeSet.ts',
      'src/core/landing/conflictForecast.ts',
      'src/node/git/agentsForecast.ts',
      'src/node/git/changeParsers.ts',
      'src/node/git/forecast.ts',
      'src/node/git/landing.ts',
      'src/node/git/merge.ts',
      'src/node/git/snapshots.ts',
    ],
    git: [
      'agentLanding',
      'gitLanding',
      'landingEdges',
      'landingGuards',
      'landingPromises',
      'untouched',
      'gitService',
      'forecastConflicts',
      'hunks',
      // Restore's rollback and saveBranch (snapshots.ts) are reached from reconcile's tests.
      'gitReconcile',
      'reconcileChoices',
      // Restore's refusals and rollback, saveBranch (snapshots.ts); edges of landing.ts and forecast.ts.
      'restoreRollback',
      'landingForecastEdges',
      // forecast.ts when git answers badly or fails half way; what forecasts cost and wait for.
      'forecastFailures',
      // merge.ts: landings git stops after a clean forecast (a replayed commit, the branch moving meanwhile).
      'landingRaces',
      // agentsForecast.ts: the commits Forecast Conflicts merges from, and hash-object answering badly.
      'forecastCommits',
      // agentLanding.ts: what Merge, Discard, Restore and Clean Up leave in the record, the list and the log.
      'landingOutcomes',
      // Discard and Clean Up keep a branch that existed before the agent.
      'dispatchOnBranch',
      // agentLanding.ts: Discard closes the removed worktree's watch; Merge needs both a branch and a worktree.
      'landingFolders',
      // agentLanding.ts: what the agent's runs left running ends before its worktree is saved and removed.
      'leftoverProcesses',
    ],
  },
  reconcile: {
    mutate: [
      'src/core/reconcile/reconcile.ts',
      'src/core/reconcile/reconciler.ts',
      'src/core/reconcile/missingRepairs.ts',
      'src/node/git/worktrees.ts',
      'src/node/git/refs.ts',
    ],
    git: [
      'gitReconcile',
      'reconcile',
      'reconcileBoundaries',
      'reconcileChoices',
      'reconcileMissing',
      'orphanWindows',
      'reconcileRefs',
      'reconcileWorktrees',
      'reconcileRepairs',
      'reconcilePasses',
      // refs.ts: HEAD and the branch names read from the repository's files, and when git is asked instead.
      'headFiles',
      'worktreeAdd',
    ],
  },
  plans: {
    mutate: [
      'src/core/plans/planScheduler.ts',
      'src/core/plans/planEntries.ts',
      'src/core/plans/planGraph.ts',
      'src/core/plans/planRun.ts',
      // Land Plan and Remove Plan, moved out of planRun.ts.
      'src/core/plans/planLanding.ts',
    ],
    // planRunPicks: Best of N tasks step by step; planLandEdges: Land Plan's refusals.
    git: ['planRunEdges', 'planRunConflicts', 'planReload', 'planRunPicks', 'planLandEdges'],
  },
  review: {
    mutate: ['src/core/review/*.ts'],
    git: ['hunks', 'reviewComments', 'reviewMarks', 'agentReview', 'agentReviewEdges', 'agentReviewPromises'],
  },
  registry: {
    mutate: ['src/node/registry/recordFiles.ts', 'src/node/registry/lockFile.ts', 'src/node/registry/registryStore.ts'],
    git: [
      'registryStore',
      'registryEdges',
      'registryReader',
      'migratingStore',
      'landingLock',
      'windowPresence',
      'windows',
      'unwritableRegistry',
      'registryWatch',
    ],
  },
};

const args = process.argv.slice(2);
const group = args[0] && !args[0].startsWith('-') ? args.shift() : undefined;
let config = 'stryker.config.json';
if (group) {
  const chosen = groups[group];
  if (!chosen) {
    console.error(`Unknown group "${group}". Groups: ${Object.keys(groups).join(', ')}.`);
    process.exit(2);
  }
  const base = JSON.parse(fs.readFileSync(path.join(root, 'stryker.config.json'), 'utf8'));
  delete base.$schema;
  const made = {
    ...base,
    mutate: chosen.mutate,
    mochaOptions: {
      spec: ['out/test/unit/**/*.test.js', ...chosen.git.map((t) => `out/test/git/${t}.test.js`)],
      // What the .vsix holds kills no mutant, and its test runs node_modules/@vscode/vsce by path: a
      // sandbox of a worktree whose node_modules is a symbolic link has none (Stryker links only a real one).
      ignore: ['out/test/unit/packaging.test.js'],
    },
    incrementalFile: `reports/stryker-incremental-${group}.json`,
    htmlReporter: { fileName: `reports/mutation-${group}/index.html` },
    jsonReporter: { fileName: `reports/mutation-${group}/mutation.json` },
  };
  fs.mkdirSync(path.join(root, 'reports'), { recursive: true });
  config = path.join('reports', `stryker-${group}.config.json`);
  fs.writeFileSync(path.join(root, config), `${JSON.stringify(made, null, 2)}\n`);
}
const stryker = path.join(root, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');
const run = spawnSync(process.execPath, [stryker, 'run', config, ...args], { cwd: root, stdio: 'inherit' });
process.exit(run.status ?? 1);
