import * as vscode from 'vscode';
import { settings } from '../constants';
import { type Profile, mergeProfiles } from '../core/clis';
import type { MergeStrategy } from '../core/git';
import type { Logger, ManagerSettings } from '../core/ports';

const mergeStrategies: readonly MergeStrategy[] = ['merge', 'squash', 'rebase'];

/** Reads the extension's settings. Profiles are machine-scoped, so a workspace cannot define what runs. */
export class Config {
  private reportedProblems = '';
  private readonly reportedSettings = new Set<string>();

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

  /** The agent settings the core reads, with agent logs under `logDir`. */
  managerSettings(logDir: string): ManagerSettings {
    return {
      branchPrefix: this.branchPrefix(),
      worktreeRoot: this.worktreeRoot(),
      logDir,
      agentTimeoutMs: this.agentTimeoutMinutes() * 60_000,
      maxConcurrentAgents: this.maxConcurrentAgents(),
      providerLimits: this.section.get<unknown>(settings.providerLimits, {}),
      defaultBudgetUsd: this.section.get<unknown>(settings.defaultBudgetUsd, null),
      setupCommand: this.setupCommand(),
      checkCommand: this.checkCommand(),
      symlinkFolders: this.symlinkFolders(),
      initSubmodules: this.initSubmodules(),
      worktreePool: this.worktreePool(),
      // Values go into the agents' environment (NODE_OPTIONS could run code): user/machine values only.
      worktreeEnv: this.section.inspect<unknown>(settings.worktreeEnv)?.globalValue,
      portRange: this.section.inspect<unknown>(settings.portRange)?.globalValue,
    };
  }

  /** The default profile's name and mode (headless when no profile has that name). */
  defaultProfileMode(): Pick<Profile, 'name' | 'mode'> {
    const name = this.defaultProfile();
    return this.profiles().find((p) => p.name === name) ?? { name, mode: 'headless' };
  }

  defaultProfile(): string {
    return this.section.get<string>(settings.defaultProfile, 'demo');
  }

  maxLogMegabytes(): number {
    const value = this.section.get<number>(settings.maxLogMegabytes, 50);
    return typeof value === 'number' && value >= 1 ? value : 50;
  }

  /** 0 = no limit. */
  agentTimeoutMinutes(): number {
    const value = this.section.get<number>(settings.agentTimeoutMinutes, 0);
    return typeof value === 'number' && value > 0 ? value : 0;
  }

  /** Most live agents per repository; 0 = no limit. */
  maxConcurrentAgents(): number {
    const value = this.section.get<number>(settings.maxConcurrentAgents, 0);
    return Number.isInteger(value) && value > 0 ? value : 0;
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

  /** Warm worktrees kept per repository (0 = none); machine-scoped: they take the user's disk. */
  worktreePool(): number {
    const value = this.section.inspect<number>(settings.worktreePool)?.globalValue;
    return typeof value === 'number' && Number.isInteger(value) && value > 0 ? Math.min(value, 16) : 0;
  }

  /** argv run in each new worktree before its agent; machine-scoped, since it is a command to run. */
  setupCommand(): string[] | undefined {
    const value = this.machineStrings(settings.setupCommand);
    return value && value.length > 0 ? value : undefined;
  }

  /** argv run in an agent's folder when it succeeds and on Run Check; machine-scoped like setupCommand. */
  checkCommand(): string[] | undefined {
    const value = this.machineStrings(settings.checkCommand);
    return value && value.length > 0 ? value : undefined;
  }

  /** Folders the new worktree gets as symlinks to the main worktree's; machine-scoped like setupCommand. */
  symlinkFolders(): string[] {
    return (this.machineStrings(settings.symlinkFolders) ?? []).map((f) => f.trim()).filter((f) => f !== '');
  }

  mergeStrategy(): MergeStrategy {
    const value = this.section.get<MergeStrategy>(settings.mergeStrategy, 'merge');
    return mergeStrategies.includes(value) ? value : 'merge';
  }

  /**
   * The profile Review with Agent runs without asking, and autoReview runs; '' when unset. User or
   * machine settings only: a repository never picks which agent runs on its own.
   */
  reviewerProfile(): string {
    const value = this.section.inspect<unknown>(settings.reviewerProfile)?.globalValue;
    return typeof value === 'string' ? value.trim() : '';
  }

  /** Review with Agent when an agent of this window succeeds; user or machine settings only, like reviewerProfile. */
  autoReview(): boolean {
    return this.section.inspect<unknown>(settings.autoReview)?.globalValue === true;
  }

  notifyOnFinish(): boolean {
    return this.section.get<boolean>(settings.notifyOnFinish, true) !== false;
  }

  /**
   * Whether new worktrees get their submodules initialised; a repository may ask for it, like any
   * git checkout step.
   */
  initSubmodules(): boolean {
    return this.section.get<boolean>(settings.initSubmodules, false) === true;
  }

  /** A user/machine value that must be an array of strings; anything else is ignored, with a warning once. */
  private machineStrings(key: string): string[] | undefined {
    const value = this.section.inspect<unknown>(key)?.globalValue;
    if (value === undefined) {
      return undefined;
    }
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
      return value;
    }
    const problem = `${settings.section}.${key} must be an array of strings; ignored`;
    if (!this.reportedSettings.has(problem)) {
      this.reportedSettings.add(problem);
      this.logger.warn(`[Config] ${problem}`);
    }
    return undefined;
  }

  /** Fires when one setting (a key of `settings`) changed. */
  onDidChangeSetting(key: string, listener: () => void): vscode.Disposable {
    return vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(`${settings.section}.${key}`)) {
        listener();
      }
    });
  }

  onDidChange(listener: () => void): vscode.Disposable {
    return vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(settings.section)) {
        listener();
      }
    });
  }
}
