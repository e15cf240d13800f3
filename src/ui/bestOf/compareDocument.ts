import * as vscode from 'vscode';
import { schemes } from '../../constants';
import type { AgentRecord } from '../../core/agent';
import { type AgentManager, candidatesOf } from '../../core/agents';
import { checkRow, statusLabel } from '../agentsView/presentation';
import { translate } from '../errorMessages';
import { compareMarkdown } from './compareMarkdown';

/** How soon an open comparison follows its candidates' records. */
const refreshMs = 300;

/**
 * Serves the comparison of a Best of N's candidates (compareMarkdown.ts) as a read-only Markdown
 * document under its own scheme, one per group; an open one follows the candidates' records.
 */
export class CompareDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly manager: AgentManager) {
    this.subscription = manager.onDidChangeAgent(() => this.schedule());
  }

  /** The comparison of `record`'s group, named by the task's title, e.g. "/Best of 3 - Fix the parser.md". */
  static uri(record: AgentRecord & { bestOf: NonNullable<AgentRecord['bestOf']> }): vscode.Uri {
    const title = record.title.replace(/ \(\d+\/\d+\)$/, '').replace(/[/\\]/g, '-');
    return vscode.Uri.from({
      scheme: schemes.bestOf,
      path: `/${vscode.l10n.t('Best of {0} - {1}', record.bestOf.of, title)}.md`,
      query: JSON.stringify({ group: record.bestOf.group }),
    });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const { group } = JSON.parse(uri.query) as { group: string };
    const candidates = candidatesOf(this.manager.list(), group);
    if (candidates.length === 0) {
      return vscode.l10n.t('These candidates are no longer listed.');
    }
    const facts = (r: AgentRecord) => ({ status: statusLabel(r), check: checkRow(r.check) });
    return compareMarkdown(candidates, facts, Date.now(), translate);
  }

  /** Re-reads the open comparisons, once per burst of changes. */
  private schedule(): void {
    if (this.timer) {
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      for (const doc of vscode.workspace.textDocuments) {
        if (doc.uri.scheme === schemes.bestOf) {
          this.emitter.fire(doc.uri);
        }
      }
    }, refreshMs);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.subscription.dispose();
    this.emitter.dispose();
  }
}
