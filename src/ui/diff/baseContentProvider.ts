import * as vscode from 'vscode';
import { schemes } from '../../constants';
import type { GitPort } from '../../core/ports';

interface BaseQuery {
  readonly repo: string;
  readonly sha: string;
  /** Path at the base commit; absent for the empty side of an added or deleted file. */
  readonly path?: string;
}

/** Serves files as they were at an agent's base commit: the read-only left side of its diffs. */
export class BaseContentProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly git: GitPort) {}

  static uri(displayPath: string, query: BaseQuery): vscode.Uri {
    return vscode.Uri.from({ scheme: schemes.base, path: `/${displayPath}`, query: JSON.stringify(query) });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const query = JSON.parse(uri.query) as BaseQuery;
    if (!query.path) {
      return '';
    }
    const bytes = await this.git.showFile(query.repo, query.sha, query.path);
    if (!bytes) {
      return '';
    }
    if (bytes.subarray(0, 8000).includes(0)) {
      return vscode.l10n.t('Binary file ({0} bytes) at {1} — not shown as text.', bytes.length, query.sha.slice(0, 12));
    }
    return new TextDecoder('utf-8').decode(bytes);
  }
}
