// Sandboxed agents (Linux, bubblewrap from PATH): the real AgentManager, supervisor, bubblewrap,
// network filter and demo agent, in a real repository. The demo agent's probes (probes.ts) try what
// the sandbox must refuse; the same prompt unsandboxed shows that each probe would succeed.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import which from 'which';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { type Profile, builtinProfiles } from '../../src/core/clis/profiles';
import { AgentError } from '../../src/core/errors';
import type { Sandbox, SandboxCommand } from '../../src/core/sandbox';
import { BubblewrapSandbox, type BubblewrapOptions } from '../../src/node/sandbox/bubblewrap';
import { englishMessage } from '../../src/ui/errorText';
import { ManagerFixture, git } from '../git/managerFixture';
import { sandboxScript } from './sandboxScript';

const hasBwrap = process.platform === 'linux' && which.sync('bwrap', { nothrow: true }) !== null;
// socat bridges from outside where socat and nsenter are installed; a normal user's agent then runs as uid 0 of
// its own user namespace (bubblewrap.ts says why).
const hasForwarder = ['socat', 'nsenter'].every((name) => which.sync(name, { nothrow: true }) !== null);

/** The processes whose command line holds `text` (a forwarder left behind names its socket). */
function processesNaming(text: string): string[] {
  return fs.readdirSync('/proc').flatMap((entry) => {
    try {
      const cmdline = /^\d+$/.test(entry) ? fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8') : '';
      return cmdline.includes(text) ? [cmdline.replace(/\0/g, ' ')] : [];
    } catch {
      return [];
    }
  });
}

describe('a sandboxed agent (bubblewrap)', function () {
  this.timeout(60_000);
  let fx: ManagerFixture;
  let manager: AgentManager;
  let server: http.Server;
  let port: number;
  let home: string;
  let profile: Profile;
  /** The commands the sandbox wrapped, in order. */
  let wrapped: SandboxCommand[];

  function useSandbox(options: Partial<BubblewrapOptions> = {}): void {
    const real = new BubblewrapSandbox({ sandboxScript, runtime: process.execPath, ...options });
    wrapped = [];
    const recording: Sandbox = {
      unavailable: () => real.unavailable(),
      wrap: (request) => {
        const command = real.wrap(request);
        wrapped.push(command);
        return command;
      },
    };
    manager = fx.manager({ profiles: () => [...builtinProfiles, profile], sandbox: recording });
  }

  before(function () {
    // npm test installs bubblewrap before this stage (PA_REQUIRE_BWRAP): there a missing one fails.
    assert.ok(hasBwrap || process.env.PA_REQUIRE_BWRAP !== '1', 'bubblewrap (bwrap) is not on PATH');
    if (!hasBwrap) {
      this.skip();
    }
  });

  beforeEach(async () => {
    fx = new ManagerFixture();
    home = path.join(fx.tmp, 'home');
    fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
    fs.writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY\n');
    fs.writeFileSync(path.join(home, '.netrc'), 'machine example.com password secret\n');
    fs.writeFileSync(path.join(home, 'notes.txt'), 'not a secret\n');
    server = http.createServer((_req, res) => res.end('ok\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    profile = {
      ...builtinProfiles.find((p) => p.name === 'demo')!,
      name: 'sandboxed-demo',
      env: { ...builtinProfiles.find((p) => p.name === 'demo')!.env, HOME: home, DEMO_AGENT_PROBES: '1' },
      sandbox: { allowedHosts: ['127.0.0.1'] },
    };
    useSandbox();
  });

  afterEach(async () => {
    server.close();
    await fx.dispose();
  });

  const prompt = () =>
    [
      'create hello.txt: hi from the sandbox',
      'commit: sandboxed edit',
      `probe write ${path.join(home, 'outside.txt')}`,
      `probe write ${path.join(fx.tmp, 'outside.txt')}`,
      `probe write ${path.join(fx.repo, 'README.md')}`,
      `probe write ${path.join(fx.repo, '.git', 'hooks', 'pre-commit')}`,
      `probe read ${path.join(home, '.ssh', 'id_ed25519')}`,
      `probe read ${path.join(home, '.netrc')}`,
      `probe read ${path.join(home, 'notes.txt')}`,
      `probe fetch http://127.0.0.1:${port}/`,
      `probe fetch http://localhost:${port}/`,
      `probe connect 127.0.0.1:${port}`,
    ].join('\n');

  async function run(unsandboxed: boolean) {
    const record = await manager.dispatch({ prompt: prompt(), profile: profile.name, folder: fx.repo, unsandboxed });
    const done = await fx.finished(manager, record.id);
    assert.equal(done.status, 'succeeded', `${done.error ?? ''}\n${fs.readFileSync(done.logPath!, 'utf8')}`);
    return { done, log: fs.readFileSync(done.logPath!, 'utf8') };
  }

  it('edits and commits in its worktree, auto-approved; writes elsewhere, credential reads and other hosts are denied', async () => {
    const { done, log } = await run(false);
    assert.deepEqual(done.sandbox, { allowedHosts: ['127.0.0.1'] });
    assert.match(log, /auto-approve: on \(sandboxed\)/);
    assert.match(log, /committed [0-9a-f]+/);
    assert.equal(git(done.worktreePath!, 'show', `${done.branch}:hello.txt`), 'hi from the sandbox');
    assert.match(log, /probe write \S+home\/outside\.txt: denied \(EROFS\)/);
    assert.match(log, /probe write \S+pre-commit: denied \(EROFS\)/);
    // /tmp is the sandbox's own (emptied, then only what it needs given back): a write there never reaches the host.
    assert.ok(!fs.existsSync(path.join(fx.tmp, 'outside.txt')));
    assert.ok(!fs.existsSync(path.join(home, 'outside.txt')));
    assert.equal(
      fs.readFileSync(path.join(fx.repo, 'README.md'), 'utf8'),
      '# sample\n',
      'the main checkout is untouched',
    );
    assert.ok(!fs.existsSync(path.join(fx.repo, '.git', 'hooks', 'pre-commit')));
    assert.match(log, /probe read \S+id_ed25519: denied \(ENOENT\)/);
    assert.match(log, /probe read \S+\.netrc: denied/, 'a credential file is covered by /dev/null');
    assert.match(log, /probe read \S+notes\.txt: allowed \(13 bytes\)/, 'the rest of HOME stays readable');
    assert.match(log, new RegExp(`probe fetch http://127\\.0\\.0\\.1:${port}/: allowed \\(HTTP 200\\)`));
    assert.match(log, new RegExp(`probe fetch http://localhost:${port}/: denied \\(HTTP 403\\)`));
    assert.match(log, /refused GET localhost:\d+: not in sandbox\.allowedHosts/);
    assert.match(log, /probe connect \S+: denied \(ECONNREFUSED\)/, 'no way around the proxy');
    // The supervisor served the proxy; socat bridged from outside where it is installed, else Node inside.
    const launch = wrapped[0].sandbox!;
    assert.equal(wrapped[0].args.includes('bridge'), !hasForwarder, wrapped[0].args.join(' '));
    assert.equal(launch.proxy?.forwarder !== undefined, hasForwarder);
    assert.equal(wrapped[0].args.includes('--uid'), hasForwarder && process.getuid?.() !== 0, 'uid 0 inside');
    assert.ok(!fs.existsSync(launch.privateDir), 'the private folder is deleted at the end');
    assert.deepEqual(processesNaming(launch.proxy!.socketPath), [], 'no forwarder is left running');
  });

  it('without socat on PATH: the Node bridge inside, with the same network filter', async () => {
    const bin = path.join(fx.tmp, 'bin');
    fs.mkdirSync(bin);
    fs.symlinkSync(which.sync('bwrap'), path.join(bin, 'bwrap'));
    useSandbox({ env: { PATH: bin } });
    const { log } = await run(false);
    assert.equal(wrapped[0].sandbox?.proxy?.forwarder, undefined);
    const args = wrapped[0].args;
    const command = args.slice(args.indexOf('--', args.indexOf('--chdir')) + 1);
    assert.deepEqual(command.slice(0, 3), [process.execPath, sandboxScript, 'bridge']);
    assert.match(log, /committed [0-9a-f]+/);
    assert.match(log, new RegExp(`probe fetch http://127\\.0\\.0\\.1:${port}/: allowed \\(HTTP 200\\)`));
    assert.match(log, new RegExp(`probe fetch http://localhost:${port}/: denied \\(HTTP 403\\)`));
    assert.match(log, /probe connect \S+: denied \(ECONNREFUSED\)/, 'no way around the proxy');
    assert.ok(!fs.existsSync(wrapped[0].sandbox!.privateDir));
  });

  it('a forwarder that does not start: the agent never runs, the start fails with the reason (fails closed)', async function () {
    if (!hasForwarder) {
      this.skip();
    }
    const bin = path.join(fx.tmp, 'bin');
    fs.mkdirSync(bin);
    for (const name of ['bwrap', 'nsenter']) {
      fs.symlinkSync(which.sync(name), path.join(bin, name));
    }
    // A socat that ends at once, never listening.
    fs.writeFileSync(path.join(bin, 'socat'), `#!${process.execPath}\nprocess.exit(3);\n`, { mode: 0o755 });
    useSandbox({ env: { PATH: bin } });
    const record = await manager.dispatch({ prompt: prompt(), profile: profile.name, folder: fx.repo });
    const done = await fx.finished(manager, record.id);
    const log = fs.readFileSync(done.logPath!, 'utf8');
    assert.equal(done.status, 'failed', log);
    assert.match(log, /\[sandbox\] the network forwarder \(socat\) did not start: it ended \(3\)/);
    assert.ok(!fs.existsSync(path.join(done.worktreePath!, 'hello.txt')), 'the agent never ran');
    assert.ok(!fs.existsSync(wrapped[0].sandbox!.privateDir));
  });

  it("a socket path socat's address syntax would read (a comma in TMPDIR): the Node bridge instead", () => {
    const tmp = path.join(fx.tmp, 'a,b');
    fs.mkdirSync(tmp);
    const worktree = path.join(fx.tmp, 'comma-worktree');
    git(fx.repo, 'worktree', 'add', '-q', '-b', 'comma', worktree);
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      const sandbox = new BubblewrapSandbox({ sandboxScript, runtime: process.execPath });
      const policy = { allowedHosts: ['127.0.0.1'] };
      const command = sandbox.wrap({ agentId: 'a', profile: 'p', cwd: worktree, policy, file: 'x', args: [], env: {} });
      assert.ok(command.sandbox!.privateDir.startsWith(tmp));
      assert.equal(command.sandbox!.proxy?.forwarder, undefined);
      assert.ok(command.args.includes('bridge') && !command.args.includes('--info-fd'));
    } finally {
      if (saved === undefined) {
        delete process.env.TMPDIR;
      } else {
        process.env.TMPDIR = saved;
      }
    }
  });

  it('sandbox true (no host allowed): no network at all, no bridge inside, while it still edits and commits', async () => {
    profile = { ...profile, sandbox: { allowedHosts: [] } };
    const { done, log } = await run(false);
    assert.deepEqual(done.sandbox, { allowedHosts: [] });
    assert.equal(git(done.worktreePath!, 'show', `${done.branch}:hello.txt`), 'hi from the sandbox');
    assert.match(log, /probe read \S+id_ed25519: denied \(ENOENT\)/);
    assert.match(log, new RegExp(`probe fetch http://127\\.0\\.0\\.1:${port}/: denied`));
    assert.match(log, /probe connect \S+: denied \(ECONNREFUSED\)/);
    assert.doesNotMatch(log, /refused GET/, 'no proxy answered: there is none');
    assert.equal(wrapped[0].sandbox?.proxy, undefined);
    assert.ok(!wrapped[0].args.includes('--info-fd'));
  });

  it('run unsandboxed on request: no auto-approve, and each probe succeeds (the checks above can fail)', async () => {
    const { done, log } = await run(true);
    assert.equal(done.sandbox, undefined);
    assert.doesNotMatch(log, /auto-approve/);
    assert.match(log, /probe write \S+home\/outside\.txt: allowed/);
    assert.match(log, /probe read \S+\.netrc: allowed/);
    assert.match(log, /probe read \S+id_ed25519: allowed \(12 bytes\)/);
    assert.match(log, new RegExp(`probe fetch http://localhost:${port}/: allowed \\(HTTP 200\\)`));
    assert.match(log, /probe connect \S+: allowed/);
  });
});

describe('a sandboxed profile where the sandbox cannot run', function () {
  this.timeout(30_000);
  let fx: ManagerFixture;
  afterEach(() => fx.dispose());

  for (const [what, options, pattern] of [
    ['bubblewrap missing from PATH', { env: { PATH: '/nonexistent' } }, /sudo apt install bubblewrap/],
    ['another platform', { platform: 'darwin' as const }, /not supported on this platform \(darwin\) yet/],
  ] as const) {
    it(`${what}: a clear message, nothing created`, async () => {
      fx = new ManagerFixture();
      const profile: Profile = { ...builtinProfiles[0], name: 'boxed', sandbox: { allowedHosts: [] } };
      const manager = fx.manager({
        profiles: () => [profile],
        sandbox: new BubblewrapSandbox({ sandboxScript, runtime: process.execPath, ...options }),
      });
      await assert.rejects(manager.dispatch({ prompt: 'create a.txt: x', profile: 'boxed', folder: fx.repo }), (e) => {
        assert.ok(AgentError.isCode(e, 'sandboxUnavailable'), String(e));
        assert.match(englishMessage(e), pattern);
        assert.match(englishMessage(e), /run this agent unsandboxed, with its permission prompts/);
        return true;
      });
      assert.equal(manager.list().length, 0);
      assert.ok(!fs.existsSync(path.join(fx.tmp, 'repo.worktrees')));
      assert.equal(git(fx.repo, 'branch', '--list', 'agents/*'), '');
      assert.ok(!fs.existsSync(path.join(fx.tmp, 'logs')));
    });
  }
});
