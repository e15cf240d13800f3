/**
 * Which agents run sandboxed, and with which arguments. A profile's `sandbox` is checked at dispatch,
 * before anything is created: where the sandbox cannot run the dispatch fails with a message naming
 * what to install, never falling back to an unsandboxed run unless the user asked for this one
 * agent (`unsandboxed`). Auto-approve arguments apply only to an agent whose record says it is sandboxed.
 */
import type { AgentRecord } from '../agent';
import type { Profile } from '../clis';
import { AgentError } from '../errors';
import type { Sandbox, SandboxCommand, SandboxPolicy } from '../sandbox';
import type { ResolvedProfile } from './dispatchChecks';

export async function sandboxFor(
  sandbox: Sandbox | undefined,
  profile: Profile,
  options: { readonly unsandboxed?: boolean },
  isolation: 'worktree' | 'terminal',
): Promise<SandboxPolicy | undefined> {
  if (!profile.sandbox || options.unsandboxed) {
    return undefined;
  }
  if (isolation !== 'worktree') {
    throw new AgentError('sandboxNeedsWorktree', { profile: profile.name });
  }
  const problem = sandbox ? await sandbox.unavailable() : { missing: 'platform' as const, platform: 'this host' };
  if (problem !== undefined) {
    throw new AgentError('sandboxUnavailable', { profile: profile.name, ...problem });
  }
  return profile.sandbox;
}

/** The argument template of a run: the sandboxed one (auto-approve) only when the record is sandboxed. */
export function runArgs(
  profile: Profile,
  record: Pick<AgentRecord, 'sandbox'>,
  run: 'first' | 'continue',
): readonly string[] {
  const plain = run === 'continue' ? (profile.continueArgs ?? profile.args) : profile.args;
  if (!record.sandbox) {
    return plain;
  }
  const sandboxed = run === 'continue' ? (profile.sandboxContinueArgs ?? profile.sandboxArgs) : profile.sandboxArgs;
  return sandboxed ?? plain;
}

/** The agent's command; a sandboxed agent's wrapped by the sandbox, which fails the launch when it cannot be. */
export function agentCommand(
  sandbox: Sandbox | undefined,
  record: AgentRecord,
  executable: ResolvedProfile,
  args: readonly string[],
): SandboxCommand {
  const plain = {
    file: executable.file,
    args: [...executable.prefixArgs, ...args],
    env: { ...executable.env, ...executable.profile.env, ...record.worktreeEnv?.vars },
  };
  if (!record.sandbox) {
    return plain;
  }
  if (!sandbox) {
    throw new AgentError('sandboxUnavailable', { profile: record.profile, missing: 'platform', platform: 'this host' });
  }
  const request = { agentId: record.id, profile: record.profile, cwd: record.cwd, branch: record.branch };
  return sandbox.wrap({ ...request, policy: record.sandbox, ...plain });
}
