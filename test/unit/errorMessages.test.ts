import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AgentError, agentErrorCodes, reasonOf, type AgentErrorCode, type AgentErrorData } from '../../src/core/errors';
import { englishMessage, fill, hasText, plainArg, renderStored, textOf } from '../../src/ui/errorText';
import { repoRoot } from '../harness/paths';

// Every error code has its words in English and Spanish (l10n/bundle.l10n*.json, keyed by the
// English template of the table in src/ui/errorText.ts and src/ui/errorTexts/), and core/ and node/
// throw codes, never sentences.

type Strings = Record<string, string>;
const readJson = (path: string): Strings => JSON.parse(readFileSync(join(repoRoot, path), 'utf8')) as Strings;
const bundleEn = readJson('l10n/bundle.l10n.json');
const bundleEs = readJson('l10n/bundle.l10n.es.json');

/** Data for every code; TypeScript fails the build when a code has none. */
const samples: { readonly [C in AgentErrorCode]: AgentErrorData[C] } = {
  gitNotFound: { binary: 'git' },
  gitDiskFull: { cwd: '/repo' },
  bareRepository: { cwd: '/repo.git' },
  notARepository: { folder: '/plain' },
  gitCommandFailed: { command: 'git merge', cwd: '/repo' },
  worktreeCommandFailed: { command: 'git worktree add', cwd: '/repo' },
  worktreeDiskFull: { path: '/wt', freeKb: 12 },
  noCommits: { repoRoot: '/repo' },
  invalidRefName: { ref: '-x' },
  unknownCommit: { ref: 'nope', repoRoot: '/repo' },
  notAFullRef: { ref: 'main' },
  mergeTreeUnreadable: { repoRoot: '/repo' },
  mergeTreeOutputUnexpected: { merge: 2, count: 3 },
  mergeTreeOutputTruncated: { merge: 1, count: 1 },
  catFileOutputUnexpected: { answer: 2, count: 20 },
  branchExists: { branch: 'agents/a' },
  worktreeLocked: { path: '/wt' },
  worktreeStillExists: { path: '/wt' },
  worktreeNotListed: { path: '/wt' },
  worktreeOnOtherBranch: { path: '/wt', branch: 'refs/heads/b', expected: 'agents/a' },
  worktreeNotCreated: { path: '/wt', problem: 'otherHead', head: 'abc', expected: 'def' },
  noSavedWork: { ref: 'refs/parallel-agents/saved/a' },
  notSavedWork: { ref: 'refs/parallel-agents/saved/a' },
  restoreFolderNotEmpty: { path: '/wt' },
  branchMovedSinceSave: { branch: 'agents/a', now: '1234567890abcdef', saved: 'fedcba0987654321' },
  fileOutsideFolder: { path: '../x', cwd: '/wt' },
  unresolvedConflicts: { files: ['a', 'b'] },
  mergeWouldOverwrite: { cwd: '/wt', ref: 'main' },
  changesWouldBeOverwritten: { cwd: '/repo' },
  detachedHead: { cwd: '/repo' },
  landOnItself: { branch: 'main', cwd: '/repo' },
  stagedChanges: { cwd: '/repo' },
  landingWouldOverwrite: { cwd: '/repo', files: ['a.txt'] },
  rebaseWrongBranch: { cwd: '/wt', branch: 'other', expected: 'agents/a' },
  rebaseUncommitted: { cwd: '/wt', branch: 'agents/a' },
  refusingToRemove: { path: '/' },
  invalidAgentId: { id: '../evil' },
  noRemote: { branch: 'agents/a', repoRoot: '/repo' },
  remoteAmbiguous: { branch: 'agents/a', remotes: ['fork', 'upstream'] },
  branchNotFound: { branch: 'feature/x', repoRoot: '/repo' },
  branchCheckedOut: { branch: 'feature/x', path: '/repo.worktrees/x', where: 'other' },
  startNeedsWorktree: {},
  stackParentUnfit: { title: 'Fix', reason: 'terminal' },
  notStacked: { title: 'Fix' },
  stackParentGone: { title: 'Fix', parent: 'Base' },
  rebaseOnParentConflict: { cwd: '/wt' },
  rebaseOnParentUncommitted: { cwd: '/wt', commits: 2 },
  invalidPullRequest: { value: 'abc' },
  pullRequestNoRemote: { number: 7, repoRoot: '/repo', remote: 'origin', remotes: ['fork'] },
  pullRequestNotFound: { number: 8, remote: 'origin' },
  pushUncommitted: { title: 'Fix', count: 2 },
  pullRequestFailed: { branch: 'agents/a', tool: 'gh pr create' },
  noSuchAgent: { id: 'a1' },
  duplicateAgentId: { id: 'a1' },
  worktreeRootDiskFull: { path: '/wts' },
  worktreeRootNotCreated: { path: '/wts' },
  agentStillRunning: { title: 'Fix' },
  agentNotRunning: { title: 'Fix', status: 'succeeded' },
  notDetached: { title: 'Fix', status: 'running' },
  worktreeMissing: { title: 'Fix' },
  invalidTransition: { from: 'merged', to: 'running' },
  noSavedWorktree: { title: 'Fix' },
  noWorktreeBranch: { title: 'Fix' },
  workspaceDetachedHead: { repoRoot: '/repo' },
  nothingLeftToRestore: { title: 'Fix', branch: 'agents/a' },
  unrelatedHistory: { branch: 'agents/a', repoRoot: '/repo' },
  noMatchingOrphan: { key: '/wt' },
  orphanNowHasRecord: { branch: 'agents/a', title: 'Fix' },
  orphanInUse: { path: '/wt', pid: 4242 },
  notMissingWorktree: { title: 'Fix' },
  unknownProfile: { name: 'nope' },
  executableMissing: { command: '/bin/nope', profile: 'p' },
  executableNotOnPath: { command: 'nope', profile: 'p' },
  sandboxUnavailable: { profile: 'p', missing: 'bwrap', platform: 'linux' },
  sandboxNeedsWorktree: { profile: 'p' },
  emptyTask: {},
  bestOfCount: { count: 0, min: 2, max: 10 },
  emptyFollowUp: {},
  nulInTask: {},
  nulInFollowUp: {},
  taskTooLong: { kb: 121, maxKb: 120 },
  followUpTooLong: { kb: 121, maxKb: 120 },
  stdinPromptInTerminal: { profile: 'opencode' },
  invalidBranchPrefix: { prefix: 'a..b/' },
  worktreeEnvNotObject: {},
  worktreeEnvBadName: { name: '1PORT' },
  worktreeEnvBadValue: { name: 'PORT' },
  worktreeEnvBadPlaceholder: { name: 'PORT', placeholder: '${freeport}' },
  invalidPortRange: { range: '3999-3100' },
  portRangeExhausted: { range: '3100-3101', needed: 1, free: 0 },
  agentHasNoPorts: { title: 'Fix' },
  invalidBudget: { where: 'parallelAgents.defaultBudgetUsd', value: '0' },
  agentOverBudget: { title: 'Fix', budgetUsd: 2, costUsd: 2.31 },
  planOverBudget: { title: 'Docs', budgetUsd: 5, costUsd: 5.02 },
  worktreeRootInsideRepository: { worktreeRoot: '/repo/wts', repoRoot: '/repo' },
  planTargetDetached: { repoRoot: '/repo' },
  taskHasNoAgent: { taskId: 't' },
  invalidMaxParallel: { value: 0 },
  noSuchTask: { taskId: 't' },
  taskNotRetryable: { taskId: 't', state: 'running' },
  taskNotSkippable: { taskId: 't', state: 'done' },
  taskNotPicking: { taskId: 't', state: 'running' },
  notTaskCandidate: { title: 'Fix (1/2)', taskId: 't' },
  planCheckFailed: { taskId: 't', command: 'npm test', exit: 'exit code 1', fixes: 2 },
  noSuchPlanRun: { runId: 'r' },
  planStillRunning: { title: 'Plan', tasks: ['a', 'b'] },
  planDrivenElsewhere: { title: 'Plan' },
  duplicateTaskId: { taskId: 't' },
  unknownDependency: { taskId: 't', dependency: 'u' },
  dependencyCycle: { cycle: ['a', 'b', 'a'] },
  setupCommandNotStarted: { command: 'npm ci', error: 'spawn npm ENOENT' },
  setupCommandKilled: { command: 'npm ci', signal: 'SIGKILL' },
  setupCommandFailed: { command: 'npm ci', exitCode: 3 },
  submodulesFailed: { command: 'git submodule update --init --recursive' },
  worktreePrepFailed: {},
  agentDiskFull: { cwd: '/wt' },
  agentQuotaGaveUp: { pauses: 12, message: "You've hit your usage limit." },
  registryLocked: { file: '/repo/.git/parallel-agents/agents/a1.json', seconds: 5 },
  landingLocked: {
    repoRoot: '/repo',
    lockFile: '/repo/.git/parallel-agents/landing.lock',
    pid: 4242,
    host: 'box',
    since: '14:03:05',
    seconds: 120,
  },
  invalidRecordId: { id: '"../x"' },
  registryNotWritable: {
    folder: '/repo/.git/parallel-agents',
    file: '/repo/.git/parallel-agents/agents/a1.json',
    error: 'EROFS',
  },
  supervisorFailed: { error: 'EPIPE' },
  supervisorNotStarted: { error: 'spawn node ENOENT' },
  taskWaitingFor: { tasks: ['a', 'b'] },
  taskBlockedBy: { tasks: ['a'] },
  taskConflicted: {},
  binaryHunks: { path: 'logo.png' },
  noChangeSelected: { path: 'a.txt' },
  hunkNoLongerApplies: { path: 'a.txt', lines: '12–14' },
  noCheckCommand: { title: 'Fix bug' },
  checkCommandNotFound: { command: 'npx' },
  checkCommandNotStarted: { command: 'npm test', error: 'EACCES' },
  checkStillRunning: { title: 'Fix bug' },
  noFailingCheck: { title: 'Fix bug' },
  nothingToCheck: { title: 'Fix bug' },
  emptyReview: { title: 'Fix' },
  emptyComment: {},
  reviewFileDeleted: { title: 'Fix', path: 'old.txt' },
  reviewFileNotChanged: { title: 'Fix', path: 'b.txt' },
  nothingToReview: { title: 'Fix' },
  reviewStillRunning: { title: 'Fix' },
  reviewerNotStarted: { profile: 'claude', error: 'spawn claude ENOENT' },
  cancelled: {},
  untrustedDispatch: {},
  untrustedPlan: {},
  noFolderToDispatch: {},
  noFolderForPlan: {},
  folderNotARepository: { folder: '/plain' },
  noFolderIsARepository: { folders: ['a', 'b'] },
  noAgentApplies: {},
  noResult: { title: 'Fix' },
  notBestOfCandidate: { title: 'Fix' },
  noLog: { title: 'Fix' },
  notInWorktree: { title: 'Fix' },
  terminalClosed: { title: 'Fix' },
  noFileRow: {},
  noAgentFile: {},
  changeGone: { title: 'Fix', path: 'a.txt' },
  changeNotListed: { title: 'Fix', path: 'a.txt' },
  worksInWorkspace: { title: 'Fix' },
  alreadyInWorkspace: { title: 'Fix' },
  unsavedEditor: { path: 'a.txt' },
  unsavedAgentEditor: { path: 'a.txt' },
  uncommittedFiles: { title: 'Fix', count: 2 },
  mergeTouchesDirtyFiles: { files: ['a.txt'] },
  resolveUncommitted: { title: 'Fix', count: 2 },
  resolveMergeInProgress: { title: 'Fix' },
  noForecastConflicts: {},
  agentHasNoConflicts: { title: 'Fix' },
  noMissingAgent: {},
  noPendingReview: {},
  noPlanTask: {},
  noPlanRunning: {},
  noPlanToRemove: {},
  noPlanFile: {},
  invalidPlanFile: { name: 'x.agents.json', count: 1, problems: 'tasks: missing' },
  invalidAgentPlan: { count: 2 },
};

const placeholders = (s: string) =>
  [...new Set([...s.matchAll(/\{(\d+)\}/g)].map((m) => Number(m[1])))].sort((a, b) => a - b);

function sourceFiles(dir: string): string[] {
  return readdirSync(join(repoRoot, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    return statSync(join(repoRoot, path)).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

describe('error codes and their messages', () => {
  it('lists each code once, each under a reason', () => {
    assert.equal(new Set(agentErrorCodes).size, agentErrorCodes.length);
    assert.deepEqual(Object.keys(samples).sort(), [...agentErrorCodes].sort(), 'the test has data for every code');
    for (const code of agentErrorCodes) {
      assert.ok(reasonOf(code), `${code} has a reason`);
    }
  });

  it('gives every code an English template and a Spanish translation with the same placeholders', () => {
    const problems: string[] = [];
    for (const code of agentErrorCodes) {
      if (!hasText(code)) {
        problems.push(`${code}: no template in src/ui/errorTexts/`);
        continue;
      }
      const text = textOf(code, samples[code] as never);
      if (!text) {
        problems.push(`${code}: no text`);
        continue;
      }
      const { template, args } = text;
      if (bundleEn[template] !== template) {
        problems.push(`${code}: ${JSON.stringify(template)} is not in l10n/bundle.l10n.json`);
      }
      const spanish = bundleEs[template];
      if (typeof spanish !== 'string' || spanish.trim() === '') {
        problems.push(`${code}: ${JSON.stringify(template)} has no Spanish text in l10n/bundle.l10n.es.json`);
      } else if (placeholders(spanish).join() !== placeholders(template).join()) {
        problems.push(
          `${code}: the Spanish text has placeholders ${placeholders(spanish)}, not ${placeholders(template)}`,
        );
      }
      const expected = args.map((_, i) => i);
      if (placeholders(template).join() !== expected.join()) {
        problems.push(`${code}: ${args.length} values for the placeholders ${placeholders(template)}`);
      }
      for (const [language, words] of [
        ['en', template],
        ['es', spanish ?? ''],
      ]) {
        const shown = fill(words, args, plainArg);
        if (/\{\d+\}|undefined|\[object Object\]/.test(shown)) {
          problems.push(`${code} (${language}) reads ${JSON.stringify(shown)}`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  it('has every template errorText.ts can choose in both bundles', () => {
    const files = [
      'src/ui/errorText.ts',
      ...readdirSync(join(repoRoot, 'src/ui/errorTexts')).map((f) => `src/ui/errorTexts/${f}`),
    ];
    const source = files.map((f) => readFileSync(join(repoRoot, f), 'utf8')).join('\n');
    const templates = [...source.matchAll(/\bl10n\.t\(\s*(['"])((?:\\.|(?!\1).)*)\1/gs)].map((m) =>
      m[2].replace(/\\(.)/g, '$1'),
    );
    assert.ok(templates.length >= agentErrorCodes.length, `finds the templates (${templates.length})`);
    assert.deepEqual(
      templates.filter((t) => !(t in bundleEn) || !(t in bundleEs)),
      [],
    );
  });

  it('keeps the reason of an error and makes its message the code and data, not a sentence', () => {
    const e = new AgentError('restoreFolderNotEmpty', { path: '/x' }, 'git said so');
    assert.ok(AgentError.is(e, 'targetExists'));
    assert.ok(AgentError.isCode(e, 'restoreFolderNotEmpty'));
    assert.ok(!AgentError.isCode(e, 'noSavedWork'));
    assert.equal(e.message, 'restoreFolderNotEmpty {"path":"/x"}');
    assert.equal(e.detail, 'git said so');
    assert.equal(englishMessage(e), 'Cannot restore into /x: the folder exists and is not empty.');
  });

  it('reads statuses and file lists as the user expects', () => {
    assert.equal(
      englishMessage(new AgentError('unresolvedConflicts', { files: ['a', 'b', 'c', 'd', 'e', 'f'] })),
      'Resolve the conflicts first; still marked: a, b, c, d, e, ….',
    );
    assert.equal(
      englishMessage(new AgentError('taskNotSkippable', { taskId: 't', state: 'done' })),
      'Task "t" cannot be skipped while it is done.',
    );
    assert.equal(
      englishMessage(new AgentError('worktreeOnOtherBranch', { path: '/wt', expected: 'agents/a' })),
      'The worktree /wt has no branch checked out instead of agents/a.',
    );
  });

  it('shows a kept error in the words of its code, and an older sentence as it was', () => {
    const kept = new AgentError('agentStillRunning', { title: 'Fix' }).message;
    const english = (text: string) => renderStored(text, (t) => fill(t.template, t.args));
    assert.equal(english(kept), 'Agent "Fix" is still running — wait for it to finish or stop it first.');
    assert.equal(
      english(`/repo: ${kept}`),
      '/repo: Agent "Fix" is still running — wait for it to finish or stop it first.',
    );
    assert.equal(
      english(`Preparing failed:\n${kept}\ngit said no`),
      `Preparing failed:\n${english(kept)}\ngit said no`,
    );
    const spanish = renderStored(kept, (t) => fill(bundleEs[t.template], t.args));
    assert.equal(spanish, 'El agente "Fix" sigue en ejecución: espere a que termine o deténgalo antes.');
    for (const old of ['The agent crashed.', 'someCode {"a":1}', 'agentStillRunning {not json}', 'agentStillRunning']) {
      assert.equal(english(old), old);
    }
  });

  it('finds no sentence thrown in src/core, src/node or src/ui: AgentErrors with a code and data, never new Error(text)', () => {
    const offenders: string[] = [];
    for (const file of [...sourceFiles('src/core'), ...sourceFiles('src/node'), ...sourceFiles('src/ui')]) {
      const text = readFileSync(join(repoRoot, file), 'utf8');
      const at = (index: number) => `${file}:${text.slice(0, index).split('\n').length}`;
      for (const m of text.matchAll(/new AgentError\(\s*([^,)]+),\s*(\S)/g)) {
        const literals = [...m[1].matchAll(/(['"`])(.*?)\1/g)].map((l) => l[2]);
        if (literals.some((l) => !/^\w+$/.test(l)) || /['"`]/.test(m[2])) {
          offenders.push(`${at(m.index)} ${m[0]}`);
        }
      }
      // Under `npm run mutate` the sources are Stryker's instrumented copies, whose helper throws its own Error.
      for (const m of text.matchAll(/\b(?:throw|return) new Error\((?!'Stryker: Hit count limit reached)/g)) {
        offenders.push(`${at(m.index)} ${m[0]}`);
      }
    }
    assert.deepEqual(offenders, []);
  });
});
