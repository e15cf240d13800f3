/**
 * A profile's `sandbox` option: what a sandboxed agent may reach. Everything not named here is
 * refused: writes outside its worktree, the git data its commits need and a private temp folder;
 * reads of credential stores; network to any host not in `allowedHosts`.
 */

export interface SandboxPolicy {
  /** Host names the agent's network reaches, through the filtering proxy; `*.example.com` matches subdomains. */
  readonly allowedHosts: readonly string[];
  /** Absolute folders the agent may write besides its worktree (a CLI's own state, e.g. `~/.claude`). */
  readonly writablePaths?: readonly string[];
  /** Absolute files or folders hidden besides the credential stores hidden always. */
  readonly hiddenPaths?: readonly string[];
}

/**
 * Credential stores, relative to the home folder, that a sandboxed agent never reads: each is
 * replaced by an empty folder (or an empty file) inside the sandbox.
 */
export const hiddenHomePaths: readonly string[] = [
  '.ssh',
  '.aws',
  '.azure',
  '.config/gh',
  '.config/gcloud',
  '.config/hub',
  '.docker',
  '.kube',
  '.gnupg',
  '.password-store',
  '.local/share/keyrings',
  '.netrc',
  '.git-credentials',
  '.config/git/credentials',
  '.npmrc',
  '.pypirc',
  '.cargo/credentials',
  '.cargo/credentials.toml',
];

/** Variables that hand an agent a credential or a way out (an agent socket, VS Code's own IPC). */
export const unsetVariables: readonly string[] = [
  'SSH_AUTH_SOCK',
  'GPG_AGENT_INFO',
  'DBUS_SESSION_BUS_ADDRESS',
  'VSCODE_IPC_HOOK',
  'VSCODE_IPC_HOOK_CLI',
  'VSCODE_GIT_IPC_HANDLE',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'VSCODE_GIT_ASKPASS_MAIN',
  'VSCODE_GIT_ASKPASS_NODE',
  'GH_TOKEN',
  'GITHUB_TOKEN',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
];

const hostPattern = /^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

/** The policy, or a problem for the profile's list of ignored entries. */
export function validateSandbox(raw: unknown): SandboxPolicy | string {
  if (raw === true) {
    return { allowedHosts: [] };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return '"sandbox" must be true or an object such as { "allowedHosts": ["api.anthropic.com"] }';
  }
  const s = raw as Record<string, unknown>;
  const unknown = Object.keys(s).filter((k) => !['allowedHosts', 'writablePaths', 'hiddenPaths'].includes(k));
  if (unknown.length > 0) {
    return `"sandbox" has unknown keys: ${unknown.join(', ')}`;
  }
  const hosts = s.allowedHosts ?? [];
  if (!isStrings(hosts) || !hosts.every((h) => hostPattern.test(h) || isIpv4(h))) {
    return '"sandbox.allowedHosts" must be host names (e.g. "api.anthropic.com", "*.example.com") or IPv4 addresses';
  }
  for (const key of ['writablePaths', 'hiddenPaths'] as const) {
    const paths = s[key];
    if (paths !== undefined && (!isStrings(paths) || !paths.every((p) => p.startsWith('/') || p.startsWith('~/')))) {
      return `"sandbox.${key}" must be absolute paths (or paths starting with "~/")`;
    }
  }
  return {
    allowedHosts: hosts.map((h) => h.toLowerCase()),
    ...(s.writablePaths !== undefined ? { writablePaths: s.writablePaths as string[] } : {}),
    ...(s.hiddenPaths !== undefined ? { hiddenPaths: s.hiddenPaths as string[] } : {}),
  };
}

/** Whether the proxy lets a connection to `host` through (any port): exact names, or `*.x` for x's subdomains. */
export function hostAllowed(allowedHosts: readonly string[], host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return allowedHosts.some((allowed) =>
    allowed.startsWith('*.') ? name.endsWith(allowed.slice(1)) && name.length > allowed.length - 1 : name === allowed,
  );
}

/** One line for a row's hover: what the sandbox lets through. */
export function describeSandbox(policy: SandboxPolicy): { hosts: string; writable: string } {
  return {
    hosts: policy.allowedHosts.length > 0 ? policy.allowedHosts.join(', ') : '',
    writable: (policy.writablePaths ?? []).join(', '),
  };
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string' && v.trim() !== '');
}

function isIpv4(value: string): boolean {
  const parts = value.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}
