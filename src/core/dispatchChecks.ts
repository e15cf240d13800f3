import { LegacyAgentError } from './errors';
import { isValidBranchPrefix } from './naming';
import type { ExecutableResolver, ManagerSettings, ResolvedExecutable } from './ports';
import { type Profile, findProfile } from './profiles';
import { toForwardSlashes } from '../util/paths';

/** Linux refuses a single argument over 128 KiB (E2BIG); refuse a longer task before creating anything. */
export const maxPromptBytes = 120 * 1024;

export type ResolvedProfile = ResolvedExecutable & { readonly profile: Profile };

export function checkPrompt(prompt: string, what: 'task' | 'follow-up'): void {
  if (prompt.trim() === '') {
    throw new LegacyAgentError(
      'emptyPrompt',
      what === 'task'
        ? 'The task is empty — describe what the agent should do.'
        : 'The follow-up is empty — say what the agent should do next.',
    );
  }
  if (prompt.includes('\0')) {
    // A command line cannot carry NUL: refused here, before a worktree exists, not at launch.
    throw new LegacyAgentError(
      'launchFailed',
      `The ${what} contains a NUL character (\\0), which cannot be passed to an agent — remove it.`,
    );
  }
  const bytes = new TextEncoder().encode(prompt).length;
  if (bytes > maxPromptBytes) {
    throw new LegacyAgentError(
      'launchFailed',
      `The ${what} is ${Math.ceil(bytes / 1024)} KB; an agent's command line takes at most ${maxPromptBytes / 1024} KB — put the details in a file in the repository and refer to it.`,
    );
  }
}

export function checkSettings(settings: ManagerSettings): void {
  if (!isValidBranchPrefix(settings.branchPrefix)) {
    throw new LegacyAgentError(
      'invalidProfile',
      `parallelAgents.branchPrefix "${settings.branchPrefix}" is not a valid git branch prefix.`,
    );
  }
}

export function checkWorktreeRoot(settings: ManagerSettings, repoRoot: string): void {
  if (settings.worktreeRoot !== undefined && isInside(settings.worktreeRoot, repoRoot)) {
    throw new LegacyAgentError(
      'invalidProfile',
      `parallelAgents.worktreeRoot "${settings.worktreeRoot}" is inside the repository ${repoRoot}: its worktrees would show up in the repository's status, search and file watching. Choose a folder outside it.`,
    );
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
    const where = /[\\/]/.test(profile.command) ? 'does not exist or is not executable' : 'was not found on PATH';
    throw new LegacyAgentError(
      'executableNotFound',
      `${profile.command} ${where} — install it or edit parallelAgents.profiles (profile "${profile.name}").`,
    );
  }
  return { ...executable, profile };
}

function isInside(folder: string, root: string): boolean {
  const clean = (p: string) => toForwardSlashes(p).replace(/\/+$/, '');
  return clean(folder) === clean(root) || clean(folder).startsWith(`${clean(root)}/`);
}
