// Shared by the extension-host suites: the harness's workspace repository and polling.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { ParallelAgentsApi } from '../../src/extension';
import { waitFor as poll } from '../harness/waitFor';

export const extensionId = 'parallel-agents.parallel-agents';

export function workspaceDir(): string {
  return fs.realpathSync(vscode.workspace.workspaceFolders![0].uri.fsPath);
}

export function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: workspaceDir(), encoding: 'utf8' }).trim();
}

/** Polls `probe` until truthy (every 100 ms, 20 s unless told). */
export function waitFor<T>(what: string, probe: () => T | undefined | false, timeoutMs = 20000): Promise<T> {
  return poll(what, probe, { timeoutMs });
}

export async function activateApi(): Promise<ParallelAgentsApi> {
  const extension = vscode.extensions.getExtension<ParallelAgentsApi>(extensionId);
  if (!extension) {
    throw new Error(`${extensionId} is not installed`);
  }
  return extension.activate();
}
