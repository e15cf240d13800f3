import * as vscode from 'vscode';
import type { AgentRecord } from '../core/agent';
import type { AgentManager } from '../core/agents';
import type { LogTail } from '../node/logTail';
import { byteSize } from './byteSize';
import { openLogFile } from './logFiles';

/** How an output view reads a log (node/logTail.ts in the extension; the composition root passes it). */
export interface LogViewSource {
  /** The log's last bytes from a line start; undefined when there is no log file. */
  readTail(logPath: string): Promise<LogTail | undefined>;
  /** Emits what is appended to the log after `position`, in order, once; wake() reads now. */
  follow(logPath: string, position: number, emit: (text: string) => void): LogFollowing;
}

export interface LogFollowing extends vscode.Disposable {
  wake(): void;
}

interface View {
  readonly channel: vscode.OutputChannel;
  following?: LogFollowing;
  /** A record without a log (made by an old version): live output is shown as it is announced. */
  readonly unlogged?: boolean;
  disposed?: boolean;
}

const activeStatuses: ReadonlySet<string> = new Set(['queued', 'preparing', 'running', 'waiting-for-input']);

/**
 * One output channel per agent, made on first Show Output: the log's tail (its size does not change
 * what opening costs), then everything appended to the log after it, read from the log itself as it
 * grows. Agents whose view nobody opened cost nothing here: their output is never read, decoded or
 * even announced to this class (listening to the manager's output would make every agent's be read).
 */
export class AgentOutputViews implements vscode.Disposable {
  private readonly views = new Map<string, View>();
  private readonly subscriptions: vscode.Disposable[] = [];
  /** Only while a view of an agent without a log is open: what it shows comes from the manager. */
  private unloggedOutput?: vscode.Disposable;

  constructor(
    private readonly manager: AgentManager,
    private readonly logs: LogViewSource,
  ) {
    this.subscriptions.push(
      manager.onDidChangeAgent(({ id, kind }) => {
        if (kind === 'removed') {
          this.close(id);
        } else {
          this.views.get(id)?.following?.wake();
        }
      }),
    );
  }

  async show(id: string): Promise<void> {
    let view = this.views.get(id);
    if (!view) {
      const record = this.manager.get(id);
      const channel = vscode.window.createOutputChannel(vscode.l10n.t('Agent: {0}', record.title));
      view = { channel, unlogged: !record.logPath };
      this.views.set(id, view);
      if (view.unlogged) {
        this.unloggedOutput ??= this.manager.onDidOutput(({ id: of, text }) => {
          const shown = this.views.get(of);
          if (shown?.unlogged) {
            shown.channel.append(text);
          }
        });
      }
      view.channel.appendLine(`$ ${record.profile} — ${record.cwd}`);
      if (record.logPath) {
        await this.open(view, record, record.logPath);
      }
    }
    view.channel.show(true);
  }

  /** Opens the agent's whole log file in an editor, with VS Code's own handling of large files. */
  openFullLog(record: AgentRecord): Promise<void> {
    return openLogFile(record.logPath, record.title);
  }

  private async open(view: View, record: AgentRecord, logPath: string): Promise<void> {
    const tail = await this.logs.readTail(logPath).catch(() => undefined);
    if (view.disposed) {
      return;
    }
    if (!tail) {
      view.channel.appendLine(
        activeStatuses.has(record.status)
          ? vscode.l10n.t('No output yet: it appears here as the agent writes it.')
          : vscode.l10n.t('The log file {0} does not exist.', logPath),
      );
    } else if (tail.hiddenBytes > 0) {
      view.channel.appendLine(
        vscode.l10n.t(
          "… {0} of earlier output not shown — run 'Open Full Agent Log' to see the whole log",
          byteSize(tail.hiddenBytes),
        ),
      );
    }
    view.channel.append(tail?.text ?? '');
    // From where the tail ended: output written meanwhile follows it, none of it twice.
    view.following = this.logs.follow(logPath, tail?.end ?? 0, (text) => view.channel.append(text));
    view.following.wake();
  }

  private close(id: string): void {
    const view = this.views.get(id);
    if (view) {
      view.disposed = true;
      view.following?.dispose();
      view.channel.dispose();
      this.views.delete(id);
    }
    if (this.unloggedOutput && ![...this.views.values()].some((v) => v.unlogged)) {
      this.unloggedOutput.dispose();
      this.unloggedOutput = undefined;
    }
  }

  dispose(): void {
    this.subscriptions.forEach((s) => s.dispose());
    [...this.views.keys()].forEach((id) => this.close(id));
    this.unloggedOutput?.dispose();
  }
}
