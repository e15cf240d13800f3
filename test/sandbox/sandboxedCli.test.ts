// A real agent CLI sandboxed: Claude Code from npm (scripts/provision-clis.sh), its preset without a
// permission mode, run under bubblewrap with its auto-approve flags, against the scripted model on
// the host's loopback reached through the sandbox's filtering proxy. Unsandboxed, the same profile
// stops at its permission check having written nothing (test/agents/realClis.test.ts); sandboxed, it
// writes the file with no prompt.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import which from 'which';
import { builtinProfiles, findProfile, type Profile } from '../../src/core/clis/profiles';
import { BubblewrapSandbox } from '../../src/node/sandbox/bubblewrap';
import { cliPrompts, cliServerEnv, homeEnv } from '../agents/cliEnv';
import { ModelServer } from '../agents/modelServer';
import { git, ManagerFixture } from '../git/managerFixture';
import { sandboxScript } from './sandboxedAgent.test';

const hasBwrap = process.platform === 'linux' && which.sync('bwrap', { nothrow: true }) !== null;

function claudeBinary(): string {
  const json =
    process.env.PA_CLIS_JSON ??
    execFileSync('bash', [path.resolve(__dirname, '../../../scripts/provision-clis.sh')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
  const bin = (JSON.parse(json) as Record<string, string>).claude;
  assert.ok(bin && fs.existsSync(bin), `provisioned claude is missing: ${bin}`);
  return bin;
}

describe('a real CLI sandboxed (Claude Code under bubblewrap, scripted model through the proxy)', function () {
  this.timeout(180_000);
  let fx: ManagerFixture;
  let server: ModelServer;

  before(function () {
    this.timeout(600_000); // a cold provisioning downloads the CLIs
    assert.ok(hasBwrap || process.env.PA_REQUIRE_BWRAP !== '1', 'bubblewrap (bwrap) is not on PATH');
    if (!hasBwrap) {
      this.skip();
    }
  });

  afterEach(async () => {
    await server?.close();
    await fx?.dispose();
  });

  it('writes its file with no permission prompt: auto-approved because sandboxed, the model reached through the proxy', async () => {
    const bin = claudeBinary();
    fx = new ManagerFixture();
    server = await ModelServer.start({ file: 'notes/hello.txt', content: 'hello from a sandboxed CLI\n' });
    const home = path.join(fx.tmp, 'home');
    const preset = findProfile(builtinProfiles, 'claude');
    // Its ordinary arguments without a permission mode: unsandboxed, the write would be denied.
    const args = preset.args.filter((a, i, all) => a !== '--permission-mode' && all[i - 1] !== '--permission-mode');
    const profile: Profile = {
      ...preset,
      command: bin,
      args,
      env: { ...homeEnv(home), ...cliServerEnv('claude', server.url, home) },
      // Claude keeps its state under CLAUDE_CONFIG_DIR, in this throwaway HOME.
      sandbox: { allowedHosts: ['127.0.0.1'], writablePaths: [home] },
    };
    const manager = fx.manager({
      profiles: () => [profile],
      sandbox: new BubblewrapSandbox({ sandboxScript, runtime: process.execPath }),
      settings: () => ({ branchPrefix: 'agents', logDir: path.join(fx.tmp, 'logs'), agentTimeoutMs: 120_000 }),
    });
    const { id } = await manager.dispatch({ prompt: cliPrompts.claude, profile: 'claude', folder: fx.repo });
    await manager.whenEnded(id);
    await manager.refreshChanges(id);
    const record = manager.get(id);
    const log = fs.readFileSync(record.logPath!, 'utf8');
    assert.equal(record.status, 'succeeded', `${record.status} ${record.error ?? ''}\n${log.slice(-3000)}`);
    assert.deepEqual(record.sandbox, { allowedHosts: ['127.0.0.1'], writablePaths: [home] });
    const worktree = record.worktreePath!;
    assert.equal(fs.readFileSync(path.join(worktree, 'notes', 'hello.txt'), 'utf8'), 'hello from a sandboxed CLI\n');
    assert.deepEqual(record.activity?.denials ?? [], [], 'no permission was denied');
    assert.deepEqual(
      record.changedFiles.map((f) => f.path),
      ['notes/hello.txt'],
    );
    assert.equal(git(fx.repo, 'status', '--porcelain'), '', 'the main checkout is untouched');
    const calls = server.modelCalls('anthropic');
    assert.ok(
      calls.some((c) => c.answered === 'tool'),
      'the model was reached from inside the sandbox',
    );
  });
});
