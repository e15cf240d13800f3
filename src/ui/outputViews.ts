import * as vscode from 'vscode';
import type { AgentManager } from '../core/agents';

/** One output channel per agent, made on first Show Output: the log so far, then live output. */
export class AgentOutputViews implements vscode.Disposable {
  private readonly channels = new Map<string, vscode.OutputChannel>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly manager: AgentManager) {
    this.subscriptions.push(
      manager.onDidOutput(({ id, text }) => this.channels.get(id)?.append(text)),
      manager.onDidChangeAgent(({ id, kind }) => {
        if (kind === 'removed') {
          this.channels.get(id)?.dispose();
          this.channels.delete(id);
        }
      }),
    );
  }

  async show(id: string): Promise<void> {
    let channel = this.channels.get(id);
    if (!channel) {
      const record = this.manager.get(id);
      channel = vscode.window.createOutputChannel(vscode.l10n.t('Agent: {0}', record.title));
      this.channels.set(id, channel);
      channel.appendLine(`$ ${record.profile} — ${record.cwd}`);
      if (record.logPath) {
        try {
          const bytes = await vscode.workspace.fs.readFile(vscode.Uri.file(record.logPath));
          channel.append(new TextDecoder().decode(bytes));
        } catch {
          // No output yet: the log file is created with the first byte.
        }
      }
    }
    channel.show(true);
  }

  dispose(): void {
    this.subscriptions.forEach((s) => s.dispose());
    this.channels.forEach((c) => c.dispose());
    this.channels.clear();
  }
}
