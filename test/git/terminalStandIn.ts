// VS Code's integrated terminals, played for the manager by real child processes: each "terminal"
// is a real process which, like a terminal of VS Code's persistent sessions, outlives the manager
// (window) that started it and keeps its pid. Only the window whose stand-in started it revives it.
import { type ChildProcess, spawn } from 'node:child_process';
import type { AgentProcess, AgentRunner, LaunchRequest, ProcessExit, RunLocation } from '../../src/core/ports';
import { agentIdVariable } from '../../src/core/clis/terminalAgents';
import { Emitter } from '../../src/util/event';

export class TerminalStandIn implements AgentRunner {
  readonly children = new Map<number, { child: ChildProcess; exit: Promise<ProcessExit> }>();
  /** false: this window's VS Code revives no terminal (persistent sessions off, or a new window). */
  revives = true;
  started: LaunchRequest[] = [];

  start(request: LaunchRequest): AgentProcess {
    this.started.push(request);
    const child = spawn(request.file, [...request.args], {
      cwd: request.cwd,
      env: { ...process.env, ...request.env, [agentIdVariable]: request.agentId },
      stdio: 'ignore',
    });
    const exit = new Promise<ProcessExit>((resolve) =>
      child.on('exit', (code, signal) => resolve({ exitCode: code ?? undefined, signal: signal ?? undefined })),
    );
    this.children.set(child.pid!, { child, exit });
    return this.process(child, exit);
  }

  adopt(_agentId: string, where?: RunLocation): AgentProcess {
    const pid = where?.terminalPid;
    const found = this.revives && pid !== undefined ? this.children.get(pid) : undefined;
    return found
      ? this.process(found.child, found.exit)
      : {
          onDidOutput: new Emitter<string>().event,
          exit: Promise.resolve({ detached: true }),
          stop: async () => undefined,
        };
  }

  private process(child: ChildProcess, exit: Promise<ProcessExit>): AgentProcess {
    return {
      whenPid: Promise.resolve(child.pid),
      onDidOutput: new Emitter<string>().event,
      exit,
      stop: async () => {
        child.kill();
        await exit;
      },
      detach: () => undefined,
    };
  }

  killAll(): void {
    for (const { child } of this.children.values()) {
      child.kill('SIGKILL');
    }
  }
}
