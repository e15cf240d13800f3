/**
 * The bubblewrap command line of a sandboxed agent: a pure function of the layout the node adapter
 * found on disk (node/sandbox/bubblewrap.ts), so every mount is unit-tested. Later mounts cover
 * earlier ones: the root read-only first, then what is emptied, then what is given back (read-only,
 * then writable), then the git files that must stay read-only, then the credential stores hidden.
 */

export interface HiddenPath {
  readonly path: string;
  readonly kind: 'dir' | 'file';
}

export interface SandboxLayout {
  /** The agent's worktree: writable, except its `.git` file. */
  readonly cwd: string;
  /** The worktree's own git folder (`<common>/worktrees/<name>`): index, HEAD, its logs. */
  readonly gitDir: string;
  /** The repository's git folder: read-only but for `gitWritable`. */
  readonly commonDir: string;
  /** What a commit writes in `commonDir`: objects, logs, the folder of refs/heads that holds the branch's ref. */
  readonly gitWritable: readonly string[];
  /** Files of `gitDir` that point elsewhere (`commondir`, `gitdir`): rewritten, they would lead git outside. */
  readonly gitPointers: readonly string[];
  /** Writable private temp folder; holds the proxy's socket. TMPDIR points at `<privateDir>/tmp`. */
  readonly privateDir: string;
  /** Folders emptied (tmpfs): other programs' sockets and temp files (/tmp, /run). */
  readonly emptied: readonly string[];
  /** Folders given back read-only after the emptying (the extension's scripts, a home under /tmp). */
  readonly readOnly: readonly string[];
  /** The worktree and its git folder mounted read-only (`gitWritable` then empty): a reviewer. */
  readonly readOnlyWorktree?: boolean;
  /** Extra writable folders the profile names. */
  readonly writable: readonly string[];
  /** Existing credential stores: a folder becomes an empty tmpfs, a file /dev/null. */
  readonly hidden: readonly HiddenPath[];
  readonly setEnv: Readonly<Record<string, string>>;
  readonly unsetEnv: readonly string[];
  /** Bubblewrap tells its child's pid on `info` and holds the command back until `block` is written. */
  readonly syncFds?: { readonly info: number; readonly block: number };
  /**
   * The agent runs as uid and gid 0 of its own user namespace (the user outside, mapped): for a normal
   * user bubblewrap then nests no second user namespace for --dev, so the forwarder can enter the one
   * that owns the sandbox's network.
   */
  readonly rootInside?: boolean;
  /** What runs inside: the bridge, then the agent. */
  readonly command: readonly string[];
}

export function bwrapArgs(layout: SandboxLayout): string[] {
  const args: string[] = [
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
  ];
  const mount = (flag: '--bind' | '--ro-bind', path: string, target = path) => args.push(flag, path, target);
  layout.emptied.forEach((dir) => args.push('--tmpfs', dir));
  layout.readOnly.forEach((dir) => mount('--ro-bind', dir));
  mount('--ro-bind', layout.commonDir);
  mount('--bind', layout.privateDir);
  const own = layout.readOnlyWorktree ? '--ro-bind' : '--bind';
  mount(own, layout.cwd);
  layout.writable.forEach((dir) => mount('--bind', dir));
  layout.gitWritable.forEach((dir) => mount('--bind', dir));
  mount(own, layout.gitDir);
  layout.gitPointers.forEach((file) => mount('--ro-bind', file));
  mount('--ro-bind', `${layout.cwd}/.git`);
  for (const hidden of layout.hidden) {
    if (hidden.kind === 'dir') {
      args.push('--tmpfs', hidden.path);
    } else {
      mount('--ro-bind', '/dev/null', hidden.path);
    }
  }
  for (const name of layout.unsetEnv) {
    args.push('--unsetenv', name);
  }
  for (const [name, value] of Object.entries({ ...layout.setEnv, TMPDIR: `${layout.privateDir}/tmp` })) {
    args.push('--setenv', name, value);
  }
  if (layout.syncFds) {
    args.push('--info-fd', String(layout.syncFds.info), '--block-fd', String(layout.syncFds.block));
  }
  if (layout.rootInside) {
    args.push('--uid', '0', '--gid', '0');
  }
  args.push('--chdir', layout.cwd, '--', ...layout.command);
  return args;
}

/** The proxy variables every common HTTP client reads, both spellings. */
export function proxyEnv(port: number): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    ALL_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    all_proxy: url,
    NO_PROXY: '',
    no_proxy: '',
    // Claude Code refuses its bypass-permissions mode as root unless it is told it is sandboxed.
    IS_SANDBOX: '1',
  };
}
