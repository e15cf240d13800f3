// Restricted Mode's view of the registry: the registries of the workspace's repositories, found
// and read from their files without running git and without writing, and followed while the
// window stays untrusted (what a trusted window writes there shows here).
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { Logger } from '../core/ports';
import { type RegistryContents, readRegistries, registriesOf } from '../node/registry/registryReader';
import { debounce } from '../util/async';
import { VscodeFolderWatcher } from './folderWatcher';

const rereadMs = 100;

export class WorkspaceRegistries implements vscode.Disposable {
  private readonly watchers: vscode.Disposable[] = [];
  private readonly emitter = new vscode.EventEmitter<RegistryContents>();
  private readonly reread = debounce(() => this.emitter.fire(this.read()), rereadMs);
  readonly onDidChange = this.emitter.event;

  constructor(private readonly logger: Logger) {}

  /** The registries of the workspace folders' repositories (only those that exist are read and watched). */
  registries(): string[] {
    return registriesOf((vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath));
  }

  read(): RegistryContents {
    const contents = readRegistries(this.registries());
    for (const problem of contents.problems) {
      this.logger.warn(`[Registry] ${problem.file} skipped (${problem.reason}): ${problem.detail}`);
    }
    return contents;
  }

  /** Follows the registries that exist now; a registry made later shows after a reload or once trusted. */
  watch(): void {
    const watcher = new VscodeFolderWatcher();
    for (const registry of this.registries().filter((r) => fs.existsSync(r))) {
      this.watchers.push(watcher.watch(registry, () => this.reread.trigger()));
    }
  }

  dispose(): void {
    this.reread.dispose();
    this.watchers.splice(0).forEach((w) => w.dispose());
    this.emitter.dispose();
  }
}
