import * as vscode from 'vscode';
import { schemes } from '../../constants';
import type { FileChangeKind } from '../../core/agent';
import { changeColors, changeKindText, changeLetters } from '../agentsView/presentation';
import type { OverlapModel } from '../overlapModel';

/**
 * Status letters and git colours for the file rows of the Agents view; a file that another live
 * agent changes too is painted with the warning colour and names that agent.
 */
export class ChangeDecorationProvider implements vscode.FileDecorationProvider {
  readonly onDidChangeFileDecorations: vscode.Event<undefined>;

  constructor(private readonly overlaps: OverlapModel) {
    this.onDidChangeFileDecorations = (listener, thisArg, disposables) =>
      overlaps.onDidChange(() => listener.call(thisArg, undefined), undefined, disposables);
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    if (uri.scheme !== schemes.change) {
      return undefined;
    }
    const query = new URLSearchParams(uri.query);
    const kind = query.get('kind') as FileChangeKind | null;
    if (!kind || !(kind in changeLetters)) {
      return undefined;
    }
    const others = this.overlaps.othersFor(query.get('agent') ?? '', query.get('path') ?? '');
    if (others.length > 0) {
      return new vscode.FileDecoration(
        `${changeLetters[kind]}!`,
        vscode.l10n.t('{0} — also changed by {1}', changeKindText(kind), others.join(', ')),
        new vscode.ThemeColor('list.warningForeground'),
      );
    }
    return new vscode.FileDecoration(
      changeLetters[kind],
      changeKindText(kind),
      new vscode.ThemeColor(changeColors[kind]),
    );
  }
}
