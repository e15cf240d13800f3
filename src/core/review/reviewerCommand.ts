/**
 * The command a reviewer (Review with Agent) runs: its profile's arguments; a profile with `sandbox`
 * runs inside the sandbox with its auto-approve arguments, and with the agent's worktree and git data
 * read-only there, so the reviewer cannot change what it reviews (the snapshot put back after it
 * remains for unsandboxed reviewers). Where the sandbox cannot run, the review fails with the same
 * message a sandboxed dispatch gives; it never runs such a profile unsandboxed.
 */
import type { AgentRecord } from '../agent';
import { type ResolvedProfile, reviewRunId, runArgs } from '../agents';
import { expandArgs } from '../clis';
import { AgentError } from '../errors';
import type { Sandbox, SandboxCommand } from '../sandbox';

export async function reviewerCommand(
  sandbox: Sandbox | undefined,
  record: AgentRecord,
  executable: ResolvedProfile,
  prompt: string,
): Promise<SandboxCommand> {
  const profile = executable.profile;
  const env = { ...executable.env, ...profile.env, ...record.worktreeEnv?.vars };
  const policy = profile.sandbox;
  if (!policy) {
    return { file: executable.file, args: [...executable.prefixArgs, ...expandArgs(profile.args, prompt)], env };
  }
  const missing = sandbox ? await sandbox.unavailable() : { missing: 'platform' as const, platform: 'this host' };
  if (!sandbox || missing) {
    throw new AgentError('sandboxUnavailable', { profile: profile.name, ...missing! });
  }
  // Stryker disable next-line StringLiteral: equivalent, runArgs only asks whether the run is 'continue'
  const args = runArgs(profile, { sandbox: policy }, 'first');
  return sandbox.wrap({
    agentId: reviewRunId(record.id),
    profile: profile.name,
    cwd: record.cwd,
    branch: record.branch,
    policy,
    readOnly: true,
    file: executable.file,
    args: [...executable.prefixArgs, ...expandArgs(args, prompt)],
    env,
  });
}
