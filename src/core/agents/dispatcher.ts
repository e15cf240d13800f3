/**
 * Dispatch: checks everything that can fail cheaply before anything is created, reserves the agent's
 * ports, branch and worktree name, writes its record, has its worktree made (warm from the pool when it
 * can) and starts its run.
 */
import type { AgentRecord } from '../agent';
import type { AgentRuns } from './agentRuns';
import type { AgentRecords } from './agentRecords';
import type { ChangeTracker } from './changeTracker';
import { checkPrompt, checkPromptRoute, checkSettings, checkWorktreeRoot, resolveProfile } from './dispatchChecks';
import { slugify, titleFromPrompt } from '../naming';
import type { WorktreeNames } from '../worktrees';
import { locateStart, makeWorktree } from './dispatchStart';
import type { AgentManagerDeps, DispatchOptions } from './managerDeps';
import { joinPath } from '../../util/paths';

export class Dispatcher {
  constructor(
    private readonly deps: AgentManagerDeps,
    private readonly records: AgentRecords,
    private readonly runs: AgentRuns,
    private readonly names: WorktreeNames,
    private readonly tracker: ChangeTracker,
  ) {}

  async dispatch(options: DispatchOptions): Promise<AgentRecord> {
    const prompt = options.prompt;
    checkPrompt(prompt, 'task');
    const settings = this.deps.settings();
    checkSettings(settings);
    // Everything that can fail cheaply is checked before anything is created.
    const executable = await resolveProfile(this.deps.profiles(), options.profile, this.deps.resolver);
    const profile = executable.profile;
    const isolation = options.isolation ?? 'worktree';
    const mode = isolation === 'terminal' || options.inTerminal ? 'terminal' : profile.mode;
    checkPromptRoute(profile, mode);
    // An existing branch or a pull request (options.start): see dispatchStart.ts.
    const startPoint = await locateStart(this.deps.git, options, isolation, settings.branchPrefix);
    const located = startPoint.located;
    const { repoRoot, sha: baseSha } = located;
    if (isolation === 'worktree') {
      checkWorktreeRoot(settings, repoRoot);
    }
    const title = options.title?.trim() || titleFromPrompt(prompt);
    const id = this.deps.newId();
    const worktreeEnv = await this.runs.envs.reserve(id, repoRoot, settings);
    const reserved =
      isolation === 'worktree'
        ? await this.names
            .reserve(repoRoot, startPoint.slug ?? slugify(title), settings, located.branches)
            .catch(this.runs.envs.undo(id))
        : undefined;
    const place = reserved
      ? { cwd: reserved.worktreePath, ...reserved, branch: startPoint.existingBranch ?? reserved.branch }
      : { cwd: options.folder, branch: undefined, worktreePath: undefined };
    const record: AgentRecord = {
      id,
      title,
      prompt,
      profile: profile.name,
      mode,
      isolation,
      status: 'preparing',
      repoRoot,
      cwd: place.cwd,
      branch: place.branch,
      ...(startPoint.existingBranch ? { branchExisted: true } : {}),
      worktreePath: place.worktreePath,
      baseSha,
      createdAt: this.deps.clock.now(),
      logPath: joinPath(settings.logDirOf?.(repoRoot) ?? settings.logDir, `${id}.log`),
      changedFiles: [],
      plan: options.plan,
      worktreeEnv,
    };
    this.records.add(record);
    let warm = false;
    try {
      // Variables of its own (worktreeEnv) go into its env file and setup command: no warm worktree then.
      const pool = worktreeEnv ? undefined : this.deps.pool;
      warm = !!reserved && (await makeWorktree(this.deps.fs, this.deps.git, repoRoot, reserved, startPoint, pool));
    } catch (e) {
      this.records.delete(id);
      throw e;
    } finally {
      reserved?.release();
    }
    const start = () => this.runs.launch(this.records.get(id), executable, profile.args, prompt);
    if (place.worktreePath && !warm) {
      await this.runs.prepareThenStart(record, settings, start);
    } else {
      start();
    }
    this.tracker.track(id, record);
    if (isolation === 'terminal') {
      // A new worktree starts at its base with no changes; the workspace may already have some.
      void this.tracker.refresh(id);
    }
    return this.records.get(id);
  }
}
