import * as vscode from 'vscode';
import { settings } from '../constants';
import { type Profile, mergeProfiles } from '../core/profiles';
import type { Logger } from '../core/ports';

/** Reads the extension's settings. Profiles are machine-scoped, so a workspace cannot define what runs. */
export class Config {
  private reportedProblems = '';

  constructor(private readonly logger: Logger) {}

  private get section(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration(settings.section);
  }

  profiles(): Profile[] {
    // inspect() so that a workspace or folder value is ignored even if VS Code applied it.
    const inspected = this.section.inspect<unknown[]>(settings.profiles);
    const user = inspected?.globalValue ?? [];
    const { profiles, problems } = mergeProfiles(Array.isArray(user) ? user : []);
    const text = problems.join('\n');
    if (text !== '' && text !== this.reportedProblems) {
      this.logger.warn(`[Config] ignored invalid profiles:\n${text}`);
    }
    this.reportedProblems = text;
    return profiles;
  }

  defaultProfile(): string {
    return this.section.get<string>(settings.defaultProfile, 'demo');
  }

  /** 0 = no limit. */
  agentTimeoutMinutes(): number {
    const value = this.section.get<number>(settings.agentTimeoutMinutes, 0);
    return typeof value === 'number' && value > 0 ? value : 0;
  }

  maxParallel(): number {
    const value = this.section.get<number>(settings.maxParallel, 4);
    return Number.isInteger(value) && value >= 1 ? value : 4;
  }

  branchPrefix(): string {
    return this.section.get<string>(settings.branchPrefix, 'agents').trim() || 'agents';
  }

  /** Only user/machine values count: a repository must not choose where worktrees are written. */
  worktreeRoot(): string | undefined {
    const value = this.section.inspect<string>(settings.worktreeRoot)?.globalValue?.trim();
    return value ? value : undefined;
  }

  onDidChange(listener: () => void): vscode.Disposable {
    return vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(settings.section)) {
        listener();
      }
    });
  }
}
