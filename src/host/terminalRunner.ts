import * as vscode from 'vscode';
import { systemTimers } from '../core/clis';
import { type InputState, inputState } from '../core/agents';
import type { AgentProcess, AgentRunner, LaunchRequest, Logger, ProcessExit, RunLocation } from '../core/ports';
import { type CloseReason, agentIdVariable, closeExit, findTerminalByPid, reviveWaitMs } from '../core/clis';
import { Emitter } from '../util/event';

interface Followed {
  readonly agentId: string;
  readonly revived: boolean;
  readonly input: Emitter<InputState>;
  resolve(exit: ProcessExit): void;
  last?: InputState;
  runningCommands: number;
}

const closeReasons: Record<number, CloseReason> = {
  [vscode.TerminalExitReason.Shutdown]: 'shutdown',
  [vscode.TerminalExitReason.User]: 'user',
  [vscode.TerminalExitReason.Process]: 'process',
  [vscode.TerminalExitReason.Extension]: 'extension',
};

type TerminalEvent = vscode.Event<{ readonly terminal: vscode.Terminal }>;

/** Shell integration's events (VS Code 1.93+; `engines.vscode` allows older, where input stays unknown). */
function shellIntegrationEvents(on: (terminal: vscode.Terminal, delta: number) => void): vscode.Disposable[] {
  const window = vscode.window as unknown as Partial<
    Record<
      'onDidChangeTerminalShellIntegration' | 'onDidStartTerminalShellExecution' | 'onDidEndTerminalShellExecution',
      TerminalEvent
    >
  >;
  return [
    window.onDidChangeTerminalShellIntegration?.((e) => on(e.terminal, 0)),
    window.onDidStartTerminalShellExecution?.((e) => on(e.terminal, 1)),
    window.onDidEndTerminalShellExecution?.((e) => on(e.terminal, -1)),
  ].filter((d): d is vscode.Disposable => d !== undefined);
}

/**
 * Runs an agent as the terminal's own process (shellPath/shellArgs): the prompt is an argv element
 * and never passes through a shell. The terminal closing is the agent's exit, except when the
 * window shuts down: VS Code's persistent sessions revive the terminal, process and pid included,
 * and the next window adopts it by that pid.
 */
export class TerminalRunner implements AgentRunner, vscode.Disposable {
  private readonly terminals = new Map<string, vscode.Terminal>();
  private readonly followed = new Map<vscode.Terminal, Followed>();
  private shuttingDown = false;
  private readonly subscriptions = [
    vscode.window.onDidCloseTerminal((terminal) => this.closed(terminal)),
    ...shellIntegrationEvents((terminal, delta) => this.signal(terminal, delta)),
  ];

  constructor(
    private readonly logger: Logger,
    private readonly waitMs: number = reviveWaitMs,
  ) {}

  start(request: LaunchRequest): AgentProcess {
    // Not isTransient: a transient terminal is not revived after a reload and its process is orphaned.
    const terminal = vscode.window.createTerminal({
      name: vscode.l10n.t('Agent: {0}', request.title),
      cwd: request.cwd,
      shellPath: request.file,
      shellArgs: [...request.args],
      env: { ...request.env, [agentIdVariable]: request.agentId },
      iconPath: new vscode.ThemeIcon('hubot'),
    });
    terminal.show(true);
    return this.follow(request.agentId, terminal, false, Promise.resolve(terminal.processId));
  }

  /** Waits for VS Code to revive the agent's terminal (matched by pid); its exit says `detached` when none comes. */
  adopt(agentId: string, where?: RunLocation): AgentProcess {
    const terminalPid = where?.terminalPid;
    const seen: string[] = [];
    const started = Date.now();
    const found = findTerminalByPid<vscode.Terminal>(
      {
        current: () => vscode.window.terminals,
        onDidOpen: (listener) => vscode.window.onDidOpenTerminal(listener),
        pidOf: async (terminal) => {
          const pid = await terminal.processId;
          seen.push(`${pid ?? '-'} after ${Date.now() - started} ms`);
          return pid;
        },
      },
      terminalPid,
      this.waitMs,
      systemTimers,
    );
    void found.then((terminal) =>
      this.logger.info(
        terminal
          ? `[Terminals] ${agentId}: its terminal (pid ${terminalPid}) came back after ${Date.now() - started} ms`
          : terminalPid === undefined
            ? `[Terminals] ${agentId}: no pid was recorded, so no terminal is its own: detached`
            : `[Terminals] ${agentId}: no terminal with pid ${terminalPid} within ${this.waitMs} ms (seen: ${seen.join(', ') || 'none'}): detached`,
      ),
    );
    const input = new Emitter<InputState>();
    let pending: AgentProcess | undefined;
    let stopRequested = false;
    const exit = found.then((terminal): Promise<ProcessExit> | ProcessExit => {
      if (!terminal || this.followed.has(terminal)) {
        return { detached: !stopRequested, stopRequested };
      }
      pending = this.follow(agentId, terminal, true, Promise.resolve(terminalPid), input);
      if (stopRequested) {
        void pending.stop();
      }
      return pending.exit;
    });
    return {
      whenPid: Promise.resolve(terminalPid),
      onDidChangeInput: input.event,
      onDidOutput: new Emitter<string>().event,
      exit,
      stop: async () => {
        stopRequested = true;
        await pending?.stop();
        await exit;
      },
      detach: () => pending?.detach?.(),
    };
  }

  /** Shows the agent's terminal; false when it has closed (or was never revived). */
  reveal(agentId: string): boolean {
    const terminal = this.terminals.get(agentId);
    terminal?.show(false);
    return terminal !== undefined;
  }

  /** The window is going away: the closes that follow are its shutdown, not the agents' ends. */
  dispose(): void {
    this.shuttingDown = true;
    this.subscriptions.forEach((s) => s.dispose());
  }

  private follow(
    agentId: string,
    terminal: vscode.Terminal,
    revived: boolean,
    whenPid: Promise<number | undefined>,
    input = new Emitter<InputState>(),
  ): AgentProcess {
    this.terminals.set(agentId, terminal);
    let resolveExit: (exit: ProcessExit) => void = () => undefined;
    const exit = new Promise<ProcessExit>((resolve) => (resolveExit = resolve));
    const entry: Followed = { agentId, revived, input, resolve: resolveExit, runningCommands: 0 };
    this.followed.set(terminal, entry);
    void exit.then(() => this.forgetTerminal(terminal));
    if (terminal.exitStatus) {
      // Its process ended while no window was watching.
      this.closed(terminal);
    }
    return {
      pid: undefined,
      whenPid,
      onDidChangeInput: input.event,
      onDidOutput: new Emitter<string>().event,
      exit,
      stop: async () => {
        // Closing the terminal hangs up its process group.
        terminal.dispose();
        await exit;
      },
      // The terminal and its agent keep running; the next window adopts them.
      detach: () => this.forgetTerminal(terminal),
    };
  }

  private forgetTerminal(terminal: vscode.Terminal): void {
    const entry = this.followed.get(terminal);
    this.followed.delete(terminal);
    if (entry && this.terminals.get(entry.agentId) === terminal) {
      this.terminals.delete(entry.agentId);
    }
  }

  private closed(terminal: vscode.Terminal): void {
    const entry = this.followed.get(terminal);
    const reason = closeReasons[terminal.exitStatus?.reason ?? -1] ?? 'unknown';
    const exit = entry ? closeExit(reason, this.shuttingDown, terminal.exitStatus?.code) : undefined;
    if (entry && exit) {
      entry.resolve(exit);
    }
  }

  /** Shell integration events: `delta` counts commands started (+1) and ended (-1). */
  private signal(terminal: vscode.Terminal, delta: number): void {
    const entry = this.followed.get(terminal);
    if (!entry) {
      return;
    }
    entry.runningCommands = Math.max(0, entry.runningCommands + delta);
    const state = inputState({
      shellIntegration: (terminal as { shellIntegration?: unknown }).shellIntegration !== undefined,
      revived: entry.revived,
      runningCommands: entry.runningCommands,
    });
    if (state !== entry.last) {
      entry.last = state;
      entry.input.fire(state);
    }
  }
}
