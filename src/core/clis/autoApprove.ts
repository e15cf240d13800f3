/**
 * What a profile runs with when it is sandboxed: each preset's auto-approve flags, so a sandboxed
 * agent finishes without a permission prompt. Used only inside the sandbox (agents/runArgs.ts):
 * outside it a profile's own `args` (with their prompts or partial approvals) always apply.
 */
import { type SandboxPolicy, validateSandbox } from '../sandbox';
import type { Profile } from './profiles';

const prompt = '${prompt}';

const claude = ['-p', '--permission-mode', 'bypassPermissions', '--output-format', 'stream-json', '--verbose'];
const gemini = [`--prompt=${prompt}`, '--yolo', '--skip-trust', '--output-format', 'stream-json'];
// Copilot's preset allows all tools already (without it a headless run edits nothing).
const codexBypass = '--dangerously-bypass-approvals-and-sandbox';
const copilot = [`--prompt=${prompt}`, '--allow-all-tools', '--no-ask-user', '--output-format', 'json'];

/** Per preset: `sandboxArgs` and `sandboxContinueArgs`, the sandboxed counterparts of `args` and `continueArgs`. */
const presets: Readonly<Record<string, Pick<Profile, 'sandboxArgs' | 'sandboxContinueArgs'>>> = {
  // The demo agent asks nothing; `--auto-approve` only makes it say so, which tests check.
  demo: { sandboxArgs: ['--auto-approve', prompt] },
  claude: { sandboxArgs: [...claude, '--', prompt], sandboxContinueArgs: ['--continue', ...claude, '--', prompt] },
  'claude-terminal': {
    sandboxArgs: ['--permission-mode', 'bypassPermissions', '--', prompt],
    sandboxContinueArgs: ['--continue', '--permission-mode', 'bypassPermissions', '--', prompt],
  },
  // Ours replaces Codex's own sandbox (the flag is documented for externally sandboxed runs): nested,
  // its bubblewrap cannot map uid 0 without CAP_SETFCAP, which ours drops, so as root every write
  // fails while the run still exits 0. (Codex 0.171 has no --full-auto.)
  codex: {
    sandboxArgs: ['exec', '--json', codexBypass, '--', prompt],
    sandboxContinueArgs: ['exec', '--json', codexBypass, 'resume', '--last', '--', prompt],
  },
  gemini: { sandboxArgs: gemini, sandboxContinueArgs: ['--resume', 'latest', ...gemini] },
  copilot: { sandboxArgs: copilot, sandboxContinueArgs: ['--continue', ...copilot] },
};

export function withAutoApprove(profile: Profile): Profile {
  return { ...profile, ...presets[profile.name] };
}

/** The sandbox fields of a user profile, or a problem with them. */
export function sandboxFields(
  p: Record<string, unknown>,
): Pick<Profile, 'sandbox' | 'sandboxArgs' | 'sandboxContinueArgs'> | string {
  let sandbox: SandboxPolicy | undefined;
  if (p.sandbox !== undefined && p.sandbox !== false) {
    const checked = validateSandbox(p.sandbox);
    if (typeof checked === 'string') {
      return checked;
    }
    sandbox = checked;
  }
  for (const key of ['sandboxArgs', 'sandboxContinueArgs'] as const) {
    const value = p[key];
    if (value !== undefined && (!Array.isArray(value) || !value.every((a) => typeof a === 'string'))) {
      return `"${key}" must be an array of strings`;
    }
  }
  return {
    ...(sandbox ? { sandbox } : {}),
    ...(p.sandboxArgs !== undefined ? { sandboxArgs: p.sandboxArgs as string[] } : {}),
    ...(p.sandboxContinueArgs !== undefined ? { sandboxContinueArgs: p.sandboxContinueArgs as string[] } : {}),
  };
}
