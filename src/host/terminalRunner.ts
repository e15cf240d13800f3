import * as vscode from 'vscode';
import type { AgentProcess, AgentRunner, LaunchRequest, ProcessExit } from '../core/ports';
import { Emitter } from '../util/event';

/**
 * Runs an agent as the terminal's own process (shellPath/shellArgs): the prompt is an argv element
 * and never passes through a shell. The terminal closing is the agent's exit.
 */
export class TerminalRunner implements AgentRunner, vscode.Disposable {
  private readonly terminals = new Map<string, vscode.Terminal>();
  private readonly exits = new Map<vscode.Terminal, (exit: ProcessExit) => void>();
  private readonly subscription = vscode.window.onDidCloseTerminal((terminal) => {
    const resolve = this.exits.get(terminal);
    if (resolve) {
      this.exits.delete(terminal);
      resolve({ exitCode: terminal.exitStatus?.code });
    }
  });

  start(request: LaunchRequest): AgentProcess {
    const terminal = vscode.window.createTerminal({
      name: vscode.l10n.t('Agent: {0}', request.title),
      cwd: request.cwd,
      shellPath: request.file,
      shellArgs: [...request.args],
      env: { ...request.env },
      iconPath: new vscode.ThemeIcon('hubot'),
      isTransient: true,
    });
    this.terminals.set(request.agentId, terminal);
    const exit = new Promise<ProcessExit>((resolve) => this.exits.set(terminal, resolve));
    void exit.then(() => this.terminals.delete(request.agentId));
    terminal.show(true);
    const output = new Emitter<string>();
    return {
      pid: undefined,
      onDidOutput: output.event,
      exit,
      stop: async () => {
        // Closing the terminal hangs up its process group.
        terminal.dispose();
        await exit;
      },
    };
  }

  /** Shows the agent's terminal; false when it has already closed. */
  reveal(agentId: string): boolean {
    const terminal = this.terminals.get(agentId);
    terminal?.show(false);
    return terminal !== undefined;
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
