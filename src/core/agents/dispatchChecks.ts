import { AgentError } from '../errors';
import { isValidBranchPrefix } from '../naming';
import type { ExecutableResolver, ManagerSettings, ResolvedExecutable } from '../ports';
import { type Profile, findProfile } from '../clis';
import { toForwardSlashes } from '../../util/paths';

/** Linux refuses a single argument over 128 KiB (E2BIG); refuse a longer task before creating anything. */
export const maxPromptBytes = 120 * 1024;

export type ResolvedProfile = ResolvedExecutable & { readonly profile: Profile };

export function checkPrompt(prompt: string, what: 'task' | 'follow-up'): void {
  if (prompt.trim() === '') {
    throw new AgentError(what === 'task' ? 'emptyTask' : 'emptyFollowUp', {});
  }
  if (prompt.includes('\0')) {
    // A command line cannot carry NUL: refused here, before a worktree exists, not at launch.
    throw new AgentError(what === 'task' ? 'nulInTask' : 'nulInFollowUp', {});
  }
  const bytes = new TextEncoder().encode(prompt).length;
  if (bytes > maxPromptBytes) {
    const size = { kb: Math.ceil(bytes / 1024), maxKb: maxPromptBytes / 1024 };
    throw new AgentError(what === 'task' ? 'taskTooLong' : 'followUpTooLong', size);
  }
}

/** A task on standard input needs a process whose input is ours: not an agent in a terminal. */
export function checkPromptRoute(profile: Profile, mode: 'headless' | 'terminal'): void {
  if (profile.promptVia === 'stdin' && mode === 'terminal') {
    throw new AgentError('stdinPromptInTerminal', { profile: profile.name });
  }
}

export function checkSettings(settings: ManagerSettings): void {
  if (!isValidBranchPrefix(settings.branchPrefix)) {
    throw new AgentError('invalidBranchPrefix', { prefix: settings.branchPrefix });
  }
}

export function checkWorktreeRoot(settings: ManagerSettings, repoRoot: string): void {
  if (settings.worktreeRoot !== undefined && isInside(settings.worktreeRoot, repoRoot)) {
    throw new AgentError('worktreeRootInsideRepository', { worktreeRoot: settings.worktreeRoot, repoRoot });
  }
}

export async function resolveProfile(
  profiles: readonly Profile[],
  name: string,
  resolver: ExecutableResolver,
): Promise<ResolvedProfile> {
  const profile = findProfile(profiles, name);
  const executable = await resolver.resolve(profile.command);
  if (!executable) {
    const code = /[\\/]/.test(profile.command) ? 'executableMissing' : 'executableNotOnPath';
    throw new AgentError(code, { command: profile.command, profile: profile.name });
  }
  return { ...executable, profile };
}

function isInside(folder: string, root: string): boolean {
  const clean = (p: string) => toForwardSlashes(p).replace(/\/+$/, '');
  return clean(folder) === clean(root) || clean(folder).startsWith(`${clean(root)}/`);
}
