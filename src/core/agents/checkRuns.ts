/**
 * The check command of each agent (`parallelAgents.checkCommand`, or its profile's): run headless
 * in the agent's folder, through the same SetupRun as the setup command, when the agent succeeds
 * and on Run Check. Its output goes to the agent's check log; its state, exit and the content tree
 * it ran on go to the record's `check`.
 */
import type { AgentCheck, AgentRecord } from '../agent';
import { AgentError, storedLine } from '../errors';
import type { LaunchRequest } from '../ports';
import { SetupRun, commandText } from '../worktrees';
import { joinPath } from '../../util/paths';
import type { AgentRecords } from './agentRecords';
import { type CheckVerdict, checkCommandFor, checkVerdict, endedCheck, fixOutputBytes, fixPrompt } from './checks';
import type { AgentManagerDeps } from './managerDeps';
import type { Disposable } from '../../util/event';
import { type FolderCheck, runFolderCheck } from './folderCheck';
import { checkRunId } from './runHistory';

export type CheckDeps = Pick<
  AgentManagerDeps,
  'git' | 'fs' | 'resolver' | 'headlessRunner' | 'clock' | 'logger' | 'settings' | 'profiles'
>;

export class CheckRuns implements Disposable {
  /** Checks started here: set before the first await, so two starts never race. */
  private readonly current = new Map<string, { run?: SetupRun; ended: Promise<void> }>();
  private disposed = false;

  constructor(
    private readonly deps: CheckDeps,
    private readonly records: AgentRecords,
  ) {}

  /** The argv that checks the agent now (its profile's, else the setting's); undefined when none is set. */
  commandFor(record: AgentRecord): readonly string[] | undefined {
    return checkCommandFor(record, this.deps.profiles(), this.deps.settings());
  }

  isRunning(id: string): boolean {
    return this.current.has(id);
  }

  /** Resolves once the check running here has ended and is recorded; at once when none runs. */
  async ended(id: string): Promise<void> {
    // A check still starting waits on a placeholder first, then on its run's end.
    for (let entry = this.current.get(id); entry; ) {
      const waited = entry.ended;
      await waited;
      const next = this.current.get(id);
      if (next === entry && next.ended === waited) {
        return;
      }
      entry = next;
    }
  }

  /** An agent's run ended: a succeeded agent with a check command and a folder is checked. */
  afterAgentEnd(id: string): void {
    const record = this.records.has(id) ? this.records.get(id) : undefined;
    if (!record || record.status !== 'succeeded' || !this.commandFor(record) || !hasFolder(record)) {
      return;
    }
    this.start(id).catch((e: Error) => this.deps.logger.warn(`[Checks] ${id}: ${e.message}`));
  }

  /**
   * Starts the agent's check; resolves once it runs (with the record's check). No command set,
   * no folder or a check already running: refused, nothing changed. A command that is not found:
   * the record's check says so (state error), and this rejects with that error.
   */
  async start(id: string): Promise<AgentCheck> {
    const record = this.records.get(id);
    const argv = this.commandFor(record);
    if (!argv) {
      throw new AgentError('noCheckCommand', { title: record.title });
    }
    if (!hasFolder(record)) {
      throw new AgentError('nothingToCheck', { title: record.title });
    }
    if (this.current.has(id)) {
      throw new AgentError('checkStillRunning', { title: record.title });
    }
    let started: () => void = () => undefined;
    const entry: { run?: SetupRun; ended: Promise<void> } = { ended: new Promise<void>((r) => (started = r)) };
    this.current.set(id, entry);
    try {
      return await this.launch(record, argv, entry);
    } catch (e) {
      this.current.delete(id);
      throw e;
    } finally {
      started();
    }
  }

  private async launch(
    record: AgentRecord,
    argv: readonly string[],
    entry: { run?: SetupRun; ended: Promise<void> },
  ): Promise<AgentCheck> {
    const id = record.id;
    const startedAt = this.deps.clock.now();
    const base: AgentCheck = { state: 'running', command: [...argv], startedAt, logPath: this.logPath(record) };
    const resolved = await this.deps.resolver.resolve(argv[0]);
    if (!resolved) {
      const data = { command: argv[0] };
      this.records.update(id, {
        check: { ...base, state: 'error', endedAt: startedAt, error: storedLine('checkCommandNotFound', data) },
      });
      throw new AgentError('checkCommandNotFound', data);
    }
    const tree = await this.deps.git.contentTree(record.cwd).catch((e: Error) => {
      this.deps.logger.warn(`[Checks] ${id}: the folder's content tree: ${e.message}`);
      return undefined;
    });
    const request: LaunchRequest = {
      agentId: checkRunId(id),
      title: `${record.title} (check)`,
      file: resolved.file,
      args: [...resolved.prefixArgs, ...argv.slice(1)],
      cwd: record.cwd,
      env: { ...resolved.env, ...record.worktreeEnv?.vars },
      logPath: base.logPath,
      banner: `──── check: ${commandText(argv)}`,
    };
    const run = SetupRun.launch(this.deps.headlessRunner, request, (exit) => exit.error ?? '', this.deps.logger);
    if (typeof run === 'string') {
      const data = { command: commandText(argv), error: run };
      this.records.update(id, {
        check: { ...base, state: 'error', endedAt: startedAt, error: storedLine('checkCommandNotStarted', data) },
      });
      throw new AgentError('checkCommandNotStarted', data);
    }
    const check: AgentCheck = {
      ...base,
      ...(tree ? { tree } : {}),
      ...(run.logOffset !== undefined ? { logOffset: run.logOffset } : {}),
    };
    this.records.update(id, { check });
    if (this.disposed) {
      void run.stop();
    }
    this.deps.logger.info(`[Checks] ${id}: started ${commandText(argv)} in ${record.cwd}`);
    entry.run = run;
    entry.ended = run.ended.then(async (end) => {
      // What the check left running (a server, a watcher) ends with it: its result is of the folder as it was.
      await run.stop();
      this.current.delete(id);
      if (this.disposed || !this.records.has(id)) {
        return;
      }
      const done = endedCheck(check, end, this.deps.clock.now());
      this.deps.logger.info(`[Checks] ${id}: ${done.state} (exit ${done.exitCode ?? '-'})`);
      this.records.update(id, { check: done });
    });
    return check;
  }

  /** The agent's check against its folder's content now; undefined when no check ran or none is set. */
  async verdict(id: string): Promise<CheckVerdict | undefined> {
    const record = this.records.get(id);
    if (!this.commandFor(record)) {
      return undefined;
    }
    if (!record.check || record.check.state === 'running' || record.check.state === 'error') {
      return record.check?.state;
    }
    const tree = await this.deps.git.contentTree(record.cwd).catch(() => undefined);
    return checkVerdict(record.check, tree);
  }

  /**
   * Runs agent `id`'s check command (its profile's, else the setting's) to its end in another
   * folder, `cwd`, logged to `<log dir>/<name>.check.log`; undefined when no check command is set.
   */
  async inFolder(id: string, cwd: string, name: string): Promise<FolderCheck | undefined> {
    const record = this.records.get(id);
    const argv = this.commandFor(record);
    if (!argv) {
      return undefined;
    }
    const settings = this.deps.settings();
    const logPath = joinPath(settings.logDirOf?.(record.repoRoot) ?? settings.logDir, `${name}.check.log`);
    return runFolderCheck(this.deps, { runId: `${name}.check`, title: `${record.title} (check)`, cwd, argv, logPath });
  }

  /** The follow-up that asks the agent to fix its failing check: the command and the end of its output. */
  async fixPrompt(id: string): Promise<string> {
    const record = this.records.get(id);
    const check = record.check;
    if (!check || check.state !== 'failed') {
      throw new AgentError('noFailingCheck', { title: record.title });
    }
    const output = await this.deps.fs.readLogTail(check.logPath, check.logOffset ?? 0, fixOutputBytes * 2);
    return fixPrompt(check, output);
  }

  /** A check still running is stopped: no window would record its end. */
  dispose(): void {
    this.disposed = true;
    for (const entry of this.current.values()) {
      void entry.run?.stop();
    }
    this.current.clear();
  }

  private logPath(record: AgentRecord): string {
    const settings = this.deps.settings();
    return joinPath(settings.logDirOf?.(record.repoRoot) ?? settings.logDir, `${record.id}.check.log`);
  }
}

function hasFolder(record: AgentRecord): boolean {
  return (
    record.worktreePresent !== false && !record.worktreeMissing && !['merged', 'discarded'].includes(record.status)
  );
}
