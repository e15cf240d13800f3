/**
 * The provider an agent's quota belongs to (`parallelAgents.providerLimits` keys): a profile's own
 * `provider` when it names one, else the one its CLI stands for (every profile that runs `claude`
 * shares Claude's limits, whatever the profile is called), else the command's file name.
 */
import { demoCommand } from './profiles';

const commandProviders: Readonly<Record<string, string>> = {
  claude: 'claude',
  codex: 'codex',
  gemini: 'gemini',
  copilot: 'copilot',
  opencode: 'opencode',
  'cursor-agent': 'cursor',
  aider: 'aider',
  [demoCommand]: 'demo',
};

export function providerOf(profile: { readonly command: string; readonly provider?: string }): string {
  const own = profile.provider?.trim();
  if (own) {
    return own;
  }
  const file = profile.command.split(/[\\/]/).pop() ?? profile.command;
  const name = file.replace(/\.(exe|cmd|bat|ps1|js|mjs)$/i, '');
  return commandProviders[name] ?? (name || profile.command);
}

/** `parallelAgents.providerLimits` as set: provider → a whole number above 0; anything else is no limit. */
export function providerCaps(value: unknown): ReadonlyMap<string, number> {
  const caps = new Map<string, number>();
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return caps;
  }
  for (const [provider, cap] of Object.entries(value as Record<string, unknown>)) {
    if (typeof cap === 'number' && Number.isInteger(cap) && cap > 0) {
      caps.set(provider, cap);
    }
  }
  return caps;
}
