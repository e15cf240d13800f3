import * as vscode from 'vscode';
import { schemes } from '../../constants';
import type { AgentRecord } from '../../core/agent';
import type { AgentManager } from '../../core/agents';
import { checkRow, errorText, statusLabel } from '../agentsView/presentation';
import { translate } from '../errorMessages';
import { accountMarkdown } from './accountMarkdown';

interface AccountQuery {
  readonly agent: string;
  /** The empty original side the account is shown against in the review. */
  readonly empty?: true;
}

/** How soon an open account follows its record (a running agent's record changes often). */
const refreshMs = 300;

/**
 * Serves an agent's account (accountMarkdown.ts) as a read-only Markdown document under its own
 * scheme, so no file command (accept, revert, viewed, hunks, comments) ever takes it for a changed
 * file. An open account follows its record.
 */
export class AccountDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;
  private readonly pending = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly subscription: vscode.Disposable;

  constructor(private readonly manager: AgentManager) {
    this.subscription = manager.onDidChangeAgent(({ id }) => this.schedule(id));
  }

  /**
   * The account of `record`. Its path is what lists and tabs show: a Markdown file's name under the
   * agent's title, e.g. "/Fix the parser/Agent's account.md".
   */
  static uri(record: Pick<AgentRecord, 'id' | 'title'>, empty = false): vscode.Uri {
    const query: AccountQuery = empty ? { agent: record.id, empty } : { agent: record.id };
    return vscode.Uri.from({
      scheme: schemes.account,
      path: `/${record.title.replace(/[/\\]/g, '-')}/${vscode.l10n.t("Agent's account")}.md`,
      query: JSON.stringify(query),
    });
  }

  /** The agent whose account (or its empty original side) `uri` is; undefined for any other document. */
  static queryOf(uri: vscode.Uri): AccountQuery | undefined {
    return uri.scheme === schemes.account ? (JSON.parse(uri.query) as AccountQuery) : undefined;
  }

  /**
   * The entry of `vscode.changes` for the account: an empty original side, then the account. (An
   * entry without an original side is shown too, but the tab's input does not list it.)
   */
  static reviewEntry(record: Pick<AgentRecord, 'id' | 'title'>): [vscode.Uri, vscode.Uri, vscode.Uri] {
    const account = AccountDocuments.uri(record);
    return [account, AccountDocuments.uri(record, true), account];
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const query = JSON.parse(uri.query) as AccountQuery;
    if (query.empty) {
      return '';
    }
    const record = this.manager.list().find((r) => r.id === query.agent);
    if (!record) {
      return vscode.l10n.t('This agent is no longer listed.');
    }
    const verdict = record.check ? await this.manager.checks.verdict(record.id).catch(() => undefined) : undefined;
    const check = checkRow(record.check);
    return accountMarkdown(
      record,
      {
        now: Date.now(),
        status: statusLabel(record),
        check:
          check !== undefined && verdict === 'stale'
            ? vscode.l10n.t('{0} — stale: the files changed since it ran', check)
            : check,
        error: errorText(record),
      },
      translate,
    );
  }

  /** Re-reads the open accounts of agent `id`, once per burst of changes. */
  private schedule(id: string): void {
    if (this.pending.has(id)) {
      return;
    }
    this.pending.set(
      id,
      setTimeout(() => {
        this.pending.delete(id);
        for (const doc of vscode.workspace.textDocuments) {
          const query = AccountDocuments.queryOf(doc.uri);
          if (query?.agent === id && !query.empty) {
            this.emitter.fire(doc.uri);
          }
        }
      }, refreshMs),
    );
  }

  dispose(): void {
    this.pending.forEach((timer) => clearTimeout(timer));
    this.pending.clear();
    this.subscription.dispose();
    this.emitter.dispose();
  }
}
