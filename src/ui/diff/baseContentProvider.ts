import * as vscode from 'vscode';
import { schemes } from '../../constants';
import type { ChangeGit } from '../../core/git';
import { Batcher } from '../../util/async';

export interface BaseQuery {
  readonly repo: string;
  readonly sha: string;
  /** The agent and its change (path relative to the agent's folder) this side belongs to. */
  readonly agent: string;
  readonly file: string;
  /** Path at the base commit; absent for the empty side of an added or deleted file. */
  readonly path?: string;
}

/**
 * Serves files as they were at an agent's base commit: the read-only left side of its diffs. Files
 * of one commit asked for together (the all-changes diff asks for every file at once) are read
 * in one git process.
 */
export class BaseContentProvider implements vscode.TextDocumentContentProvider {
  private readonly reads: Batcher<Uint8Array | undefined>;

  constructor(git: Pick<ChangeGit, 'showFiles'>) {
    this.reads = new Batcher((group, paths) => {
      const { repo, sha } = JSON.parse(group) as { repo: string; sha: string };
      return git.showFiles(repo, sha, paths);
    });
  }

  /**
   * `filePath` is where the file lives in the agent's folder: with the same path on both sides, VS Code
   * labels the pair by that file and does not mistake it for a rename.
   */
  static uri(filePath: string, query: BaseQuery): vscode.Uri {
    return vscode.Uri.from({
      scheme: schemes.base,
      path: filePath.startsWith('/') ? filePath : `/${filePath}`,
      query: JSON.stringify(query),
    });
  }

  /** The query of a base side's uri; undefined for any other uri. */
  static queryOf(uri: vscode.Uri): BaseQuery | undefined {
    return uri.scheme === schemes.base ? (JSON.parse(uri.query) as BaseQuery) : undefined;
  }

  /** The agent change behind a diff tab, when the tab is one of an agent's diffs. */
  static changeOf(tab: vscode.Tab | undefined): { agentId: string; path: string } | undefined {
    if (tab?.input instanceof vscode.TabInputTextDiff && tab.input.original.scheme === schemes.base) {
      const query = JSON.parse(tab.input.original.query) as BaseQuery;
      return { agentId: query.agent, path: query.file };
    }
    return undefined;
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const query = JSON.parse(uri.query) as BaseQuery;
    if (!query.path) {
      return '';
    }
    const bytes = await this.reads.get(JSON.stringify({ repo: query.repo, sha: query.sha }), query.path);
    if (!bytes) {
      return '';
    }
    if (bytes.subarray(0, 8000).includes(0)) {
      return vscode.l10n.t('Binary file ({0} bytes) at {1} — not shown as text.', bytes.length, query.sha.slice(0, 12));
    }
    return new TextDecoder('utf-8').decode(bytes);
  }
}
