// The sandbox's pure parts (the bubblewrap command line, the policy, which arguments a run gets) and
// its network filter on a real unix socket. The whole sandbox with real processes:
// test/sandbox/sandboxedAgent.test.ts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { runArgs } from '../../src/core/agents/sandboxing';
import { builtinProfiles, findProfile, mergeProfiles } from '../../src/core/clis/profiles';
import { type SandboxLayout, bwrapArgs, hostAllowed, validateSandbox } from '../../src/core/sandbox';
import { splitHostPort, startFilterProxy } from '../../src/node/sandbox/filterProxy';
import { forwarderArgv } from '../../src/node/sandbox/sandboxHost';

const layout: SandboxLayout = {
  cwd: '/w/repo.worktrees/fix',
  gitDir: '/w/repo/.git/worktrees/fix',
  commonDir: '/w/repo/.git',
  gitWritable: ['/w/repo/.git/objects', '/w/repo/.git/logs', '/w/repo/.git/refs/heads/agents'],
  gitPointers: ['/w/repo/.git/worktrees/fix/commondir', '/w/repo/.git/worktrees/fix/gitdir'],
  privateDir: '/tmp/pa-sandbox-1',
  emptied: ['/tmp', '/run'],
  readOnly: ['/tmp/home'],
  writable: ['/home/u/.claude'],
  hidden: [
    { path: '/home/u/.ssh', kind: 'dir' },
    { path: '/home/u/.netrc', kind: 'file' },
  ],
  setEnv: { HTTPS_PROXY: 'http://127.0.0.1:3128' },
  unsetEnv: ['SSH_AUTH_SOCK'],
  command: [
    'node',
    'sandbox.js',
    'bridge',
    '3128',
    '/tmp/pa-sandbox-1/proxy.sock',
    '--',
    'claude',
    '-p',
    '$(rm -rf ~)',
  ],
};

/** The mount operations in order, as [flag, target] pairs. */
function mounts(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.indexOf('--chdir'); i++) {
    if (args[i] === '--tmpfs') {
      out.push(`tmpfs ${args[++i]}`);
    } else if (args[i] === '--bind' || args[i] === '--ro-bind') {
      out.push(
        `${args[i] === '--bind' ? 'rw' : 'ro'} ${args[i + 2]}${args[i + 1] !== args[i + 2] ? ` <- ${args[i + 1]}` : ''}`,
      );
      i += 2;
    }
  }
  return out;
}

describe('the bubblewrap command line (bwrapArgs)', () => {
  const args = bwrapArgs(layout);

  it('unshares everything (network included), dies with its parent, drops capabilities', () => {
    assert.deepEqual(args.slice(0, 5), ['--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL']);
    assert.ok(!args.includes('--share-net'));
  });

  it('mounts the root read-only, then empties, gives back, protects git pointers and hides credentials, in that order', () => {
    assert.deepEqual(mounts(args), [
      'ro /',
      'tmpfs /tmp',
      'tmpfs /run',
      'ro /tmp/home',
      'ro /w/repo/.git',
      'rw /tmp/pa-sandbox-1',
      'rw /w/repo.worktrees/fix',
      'rw /home/u/.claude',
      'rw /w/repo/.git/objects',
      'rw /w/repo/.git/logs',
      'rw /w/repo/.git/refs/heads/agents',
      'rw /w/repo/.git/worktrees/fix',
      'ro /w/repo/.git/worktrees/fix/commondir',
      'ro /w/repo/.git/worktrees/fix/gitdir',
      'ro /w/repo.worktrees/fix/.git',
      'tmpfs /home/u/.ssh',
      'ro /home/u/.netrc <- /dev/null',
    ]);
  });

  it('a reviewer (readOnlyWorktree, no git data writable): the worktree and its git folder read-only', () => {
    const mounted = mounts(bwrapArgs({ ...layout, readOnlyWorktree: true, gitWritable: [] }));
    assert.ok(mounted.includes('ro /w/repo.worktrees/fix'));
    assert.ok(mounted.includes('ro /w/repo/.git/worktrees/fix'));
    assert.ok(!mounted.some((m) => m.startsWith('rw /w/repo')), mounted.join('\n'));
    assert.ok(mounted.includes('rw /tmp/pa-sandbox-1'), 'its private temp stays writable');
  });

  it('sets the proxy and a private TMPDIR, unsets agent sockets, and ends with the command as argv', () => {
    const at = (flag: string, name: string) => args.findIndex((a, i) => a === flag && args[i + 1] === name);
    assert.equal(args[at('--setenv', 'HTTPS_PROXY') + 2], 'http://127.0.0.1:3128');
    assert.equal(args[at('--setenv', 'TMPDIR') + 2], '/tmp/pa-sandbox-1/tmp');
    assert.ok(at('--unsetenv', 'SSH_AUTH_SOCK') > 0);
    const dash = args.indexOf('--', args.indexOf('--chdir'));
    assert.deepEqual(args.slice(args.indexOf('--chdir'), dash), ['--chdir', '/w/repo.worktrees/fix']);
    assert.deepEqual(args.slice(dash + 1), layout.command);
    assert.ok(!args.includes('--info-fd') && !args.includes('--block-fd'));
  });

  it('with a forwarder: bubblewrap tells its pid on fd 3 and holds the command back on fd 4', () => {
    const synced = bwrapArgs({ ...layout, syncFds: { info: 3, block: 4 }, command: ['claude', '-p', 'x'] });
    const chdir = synced.indexOf('--chdir');
    assert.deepEqual(synced.slice(chdir - 4, chdir), ['--info-fd', '3', '--block-fd', '4']);
    assert.deepEqual(synced.slice(synced.indexOf('--', chdir) + 1), ['claude', '-p', 'x']);
    assert.ok(!synced.includes('--uid'), 'the user as it is, unless asked');
    // A normal user's forwarder needs the agent as uid 0 of its one user namespace.
    const rooted = bwrapArgs({ ...layout, syncFds: { info: 3, block: 4 }, rootInside: true, command: ['claude'] });
    const at = rooted.indexOf('--chdir');
    assert.deepEqual(rooted.slice(at - 8, at), ['--info-fd', '3', '--block-fd', '4', '--uid', '0', '--gid', '0']);
  });
});

describe("the network forwarder (socat in the sandbox's network namespace)", function () {
  before(function () {
    if (process.platform !== 'linux') {
      this.skip();
    }
  });

  const forwarder = { nsenter: '/usr/bin/nsenter', socat: '/usr/bin/socat', port: 3128 };
  const socat = [
    '/usr/bin/socat',
    '-d',
    '-d',
    'TCP-LISTEN:3128,fork,reuseaddr',
    'UNIX-CONNECT:/tmp/pa-sandbox-1/p.sock',
  ];

  it('enters only the network namespace (and the user one when it differs), never the mounts; argv only', () => {
    // Our own pid: the same user namespace, so nsenter must not enter it (that fails).
    assert.deepEqual(forwarderArgv(forwarder, process.pid, '/tmp/pa-sandbox-1/p.sock'), [
      '/usr/bin/nsenter',
      '--preserve-credentials',
      `--net=/proc/${process.pid}/ns/net`,
      '--',
      ...socat,
    ]);
  });

  it('with setpriv: SIGKILL when the supervisor dies', () => {
    const argv = forwarderArgv({ ...forwarder, setpriv: '/usr/bin/setpriv' }, process.pid, '/tmp/pa-sandbox-1/p.sock');
    assert.deepEqual(argv.slice(0, 5), ['/usr/bin/setpriv', '--pdeathsig', 'KILL', '--', '/usr/bin/nsenter']);
    assert.deepEqual(argv.slice(-socat.length), socat);
  });
});

describe('the sandbox policy', () => {
  it('accepts true, hosts and paths; refuses the rest with a reason', () => {
    assert.deepEqual(validateSandbox(true), { allowedHosts: [] });
    assert.deepEqual(validateSandbox({ allowedHosts: ['API.anthropic.com', '*.example.com', '127.0.0.1'] }), {
      allowedHosts: ['api.anthropic.com', '*.example.com', '127.0.0.1'],
    });
    assert.match(String(validateSandbox({ allowedHosts: ['https://x.com'] })), /allowedHosts/);
    assert.match(String(validateSandbox({ allowedHost: ['x.com'] })), /unknown keys: allowedHost/);
    assert.match(String(validateSandbox({ writablePaths: ['relative/dir'] })), /absolute/);
    assert.match(String(validateSandbox('yes')), /must be true or an object/);
  });

  it('lets a host through only when listed, or a subdomain of a *. entry', () => {
    const hosts = ['api.anthropic.com', '*.example.com'];
    assert.ok(hostAllowed(hosts, 'API.Anthropic.com'));
    assert.ok(hostAllowed(hosts, 'a.b.example.com'));
    assert.ok(!hostAllowed(hosts, 'example.com'));
    assert.ok(!hostAllowed(hosts, 'evilexample.com'));
    assert.ok(!hostAllowed(hosts, 'api.anthropic.com.evil.net'));
    assert.ok(!hostAllowed([], 'localhost'));
  });

  it('a profile entry naming a built-in without a command changes only what it sets', () => {
    const { profiles, problems } = mergeProfiles([
      { name: 'claude', sandbox: { allowedHosts: ['api.anthropic.com'] } },
      { name: 'bad', command: 'x', sandbox: { allowedHosts: 'api.anthropic.com' } },
    ]);
    const claude = findProfile(profiles, 'claude');
    assert.deepEqual(claude.args, findProfile(builtinProfiles, 'claude').args);
    assert.deepEqual(claude.sandbox, { allowedHosts: ['api.anthropic.com'] });
    assert.deepEqual(problems, [
      'parallelAgents.profiles[1]: profile "bad": "sandbox.allowedHosts" must be host names (e.g. "api.anthropic.com", "*.example.com") or IPv4 addresses',
    ]);
  });
});

describe('the arguments of a run (runArgs)', () => {
  const flags: Record<string, string> = {
    claude: 'bypassPermissions',
    'claude-terminal': 'bypassPermissions',
    codex: '--dangerously-bypass-approvals-and-sandbox',
    gemini: '--yolo',
    copilot: '--allow-all-tools',
  };

  it('auto-approves only a sandboxed record, first run and follow-up', () => {
    for (const [name, flag] of Object.entries(flags)) {
      const profile = findProfile(builtinProfiles, name);
      for (const run of ['first', 'continue'] as const) {
        assert.ok(runArgs(profile, { sandbox: { allowedHosts: [] } }, run).includes(flag), `${name} ${run}`);
      }
      if (name !== 'copilot') {
        // Copilot's preset allows all tools outside the sandbox too: without it a headless run edits nothing.
        assert.ok(!runArgs(profile, {}, 'first').includes(flag), `${name} unsandboxed`);
        assert.ok(!runArgs(profile, {}, 'continue').includes(flag), `${name} unsandboxed follow-up`);
      }
    }
    assert.ok(!runArgs(findProfile(builtinProfiles, 'claude'), {}, 'first').includes('--dangerously-skip-permissions'));
  });

  it('a sandboxed profile without sandboxArgs keeps its own arguments', () => {
    const profile = { name: 'x', command: 'x', args: ['a', '${prompt}'], mode: 'headless' as const };
    assert.deepEqual(runArgs(profile, { sandbox: { allowedHosts: [] } }, 'first'), ['a', '${prompt}']);
  });
});

describe('the network filter (a real proxy on a unix socket)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-proxy-'));
  const socketPath = path.join(dir, 'proxy.sock');
  let target: http.Server;
  let port: number;
  let close: () => Promise<void>;
  const refused: string[] = [];

  before(async () => {
    target = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    port = (target.address() as net.AddressInfo).port;
    close = (await startFilterProxy(socketPath, ['127.0.0.1'], (line) => refused.push(line))).close;
  });

  after(async () => {
    await close();
    target.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function connectThrough(hostPort: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(socketPath, () =>
        socket.write(`CONNECT ${hostPort} HTTP/1.1\r\nHost: ${hostPort}\r\n\r\n`),
      );
      socket.once('data', (chunk) => {
        socket.destroy();
        resolve(chunk.toString('latin1').split('\r\n')[0]);
      });
      socket.on('error', reject);
    });
  }

  it('tunnels CONNECT to an allowed host and answers 403 to any other', async () => {
    assert.equal(await connectThrough(`127.0.0.1:${port}`), 'HTTP/1.1 200 Connection Established');
    assert.equal(await connectThrough('example.com:443'), 'HTTP/1.1 403 Forbidden');
    assert.equal(await connectThrough(`localhost:${port}`), 'HTTP/1.1 403 Forbidden');
    assert.deepEqual(refused, [
      '[sandbox] refused CONNECT example.com:443: not in sandbox.allowedHosts',
      `[sandbox] refused CONNECT localhost:${port}: not in sandbox.allowedHosts`,
    ]);
  });

  it('reads host:port of a CONNECT, IPv6 in brackets too', () => {
    assert.deepEqual(splitHostPort('api.anthropic.com:443', 443), { host: 'api.anthropic.com', port: 443 });
    assert.deepEqual(splitHostPort('[::1]:8080', 443), { host: '::1', port: 8080 });
    assert.deepEqual(splitHostPort('x.com', 443), { host: 'x.com', port: 443 });
    assert.equal(splitHostPort('x.com:99999', 443), undefined);
  });
});
