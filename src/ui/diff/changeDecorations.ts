import * as vscode from 'vscode';
import { schemes } from '../../constants';
import type { FileChangeKind } from '../../core/agent';
import { changeColors, changeLetters } from '../agentsView/presentation';

/** Status letters and git colours for the file rows of the Agents view. */
export class ChangeDecorationProvider implements vscode.FileDecorationProvider {
  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    if (uri.scheme !== schemes.change) {
      return undefined;
    }
    const kind = new URLSearchParams(uri.query).get('kind') as FileChangeKind | null;
    if (!kind || !(kind in changeLetters)) {
      return undefined;
    }
    return new vscode.FileDecoration(changeLetters[kind], kind, new vscode.ThemeColor(changeColors[kind]));
  }
}
