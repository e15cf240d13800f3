/**
 * A check command run to its end in a folder that is not an agent's own (a plan's integration
 * worktree after a task's merge): the same SetupRun and verdict as an agent's check, kept apart
 * from any record; the caller decides what a failure means.
 */
import type { AgentCheck } from '../agent';
import { AgentError } from '../errors';
import type { LaunchRequest } from '../ports';
import { SetupRun, commandText } from '../worktrees';
import { endedCheck, fixOutputBytes } from './checks';
import type { CheckDeps } from './checkRuns';

export interface FolderCheckRequest {
  /** Names the run to the supervisor and in the log, e.g. `plan-<run>-<task>.check`. */
  readonly runId: string;
  readonly title: string;
  readonly cwd: string;
  readonly argv: readonly string[];
  readonly logPath: string;
  readonly env?: Readonly<Record<string, string>>;
}

export interface FolderCheck {
  /** passed or failed (exit code or signal), with the command that ran. */
  readonly check: AgentCheck;
  /** The end of its output (up to twice fixOutputBytes): what a follow-up shows. */
  readonly output: string;
}

/** Runs the command to its end. A command that is not found or cannot start throws its AgentError. */
export async function runFolderCheck(deps: CheckDeps, request: FolderCheckRequest): Promise<FolderCheck> {
  const { argv } = request;
  const resolved = await deps.resolver.resolve(argv[0]);
  if (!resolved) {
    throw new AgentError('checkCommandNotFound', { command: argv[0] });
  }
  const launch: LaunchRequest = {
    agentId: request.runId,
    title: request.title,
    file: resolved.file,
    args: [...resolved.prefixArgs, ...argv.slice(1)],
    cwd: request.cwd,
    env: { ...resolved.env, ...request.env },
    logPath: request.logPath,
    banner: `──── check: ${commandText(argv)}`,
  };
  const run = SetupRun.launch(deps.headlessRunner, launch, (exit) => exit.error ?? '', deps.logger);
  if (typeof run === 'string') {
    throw new AgentError('checkCommandNotStarted', { command: commandText(argv), error: run });
  }
  const started: AgentCheck = {
    state: 'running',
    command: [...argv],
    startedAt: deps.clock.now(),
    logPath: request.logPath,
    ...(run.logOffset !== undefined ? { logOffset: run.logOffset } : {}),
  };
  deps.logger.info(`[Checks] ${request.runId}: started ${commandText(argv)} in ${request.cwd}`);
  const end = await run.ended;
  // What it left running ends with it: the folder's next step (a task's merge) must not meet it.
  await run.stop();
  if (end.outcome === 'failed' && end.exit.error !== undefined) {
    throw new AgentError('checkCommandNotStarted', { command: commandText(argv), error: end.exit.error });
  }
  const check = endedCheck(started, end, deps.clock.now());
  deps.logger.info(`[Checks] ${request.runId}: ${check.state} (exit ${check.exitCode ?? '-'})`);
  const output = await deps.fs.readLogTail(request.logPath, started.logOffset ?? 0, fixOutputBytes * 2);
  return { check, output };
}
