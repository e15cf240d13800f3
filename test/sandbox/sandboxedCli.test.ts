// Real agent CLIs sandboxed: Claude Code, Codex CLI, Gemini CLI and Copilot CLI from npm
// (scripts/provision-clis.sh), each run under bubblewrap with its preset's sandboxed arguments (its
// auto-approve flags, autoApprove.ts), against the scripted model on the host's loopback reached
// through the sandbox's filtering proxy. Each writes its file in its worktree with no prompt and no
// denial. Claude's profile even has its permission mode removed: unsandboxed it would stop at its
// permission check having written nothing (test/agents/realClis.test.ts).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import which from 'which';
import { builtinProfiles, findProfile, type Profile } from '../../src/core/clis/profiles';
import { BubblewrapSandbox } from '../../src/node/sandbox/bubblewrap';
import { cliPrompts, cliServerEnv, homeEnv, type CliName } from '../agents/cliEnv';
import { ModelServer, type RecordedRequest } from '../agents/modelServer';
import { provisionedClis } from '../agents/provisionedClis';
import { git, ManagerFixture } from '../git/managerFixture';
import { sandboxScript } from './sandboxScript';

const hasBwrap = process.platform === 'linux' && which.sync('bwrap', { nothrow: true }) !== null;

interface SandboxedCase {
  readonly name: CliName;
  readonly api: RecordedRequest['api'];
  /** Where the scripted model writes (Copilot's create makes no parent folder). */
  readonly file: string;
  /** The arguments outside the sandbox; the sandboxed run uses the preset's `sandboxArgs` anyway. */
  readonly args?: (preset: Profile) => readonly string[];
}

const cases: readonly SandboxedCase[] = [
  {
    name: 'claude',
    api: 'anthropic',
    file: 'notes/hello.txt',
    args: (p) => p.args.filter((a, i, all) => a !== '--permission-mode' && all[i - 1] !== '--permission-mode'),
  },
  { name: 'codex', api: 'openai', file: 'notes/hello.txt' },
  { name: 'gemini', api: 'gemini', file: 'notes/hello.txt' },
  { name: 'copilot', api: 'chat', file: 'hello.txt' },
];
const content = 'hello from a sandboxed CLI\n';

describe('real CLIs sandboxed (under bubblewrap, auto-approved, the scripted model through the proxy)', function () {
  this.timeout(180_000);
  let fx: ManagerFixture | undefined;
  let server: ModelServer | undefined;

  before(function () {
    assert.ok(hasBwrap || process.env.PA_REQUIRE_BWRAP !== '1', 'bubblewrap (bwrap) is not on PATH');
    if (!hasBwrap) {
      this.skip();
    }
  });

  afterEach(async () => {
    await server?.close();
    await fx?.dispose();
    server = undefined;
    fx = undefined;
  });

  for (const c of cases) {
    it(`${c.name}: writes its file with no prompt via the proxied model; a follow-up too`, async function () {
      this.timeout(600_000); // a cold provisioning downloads the CLIs
      const bin = provisionedClis([c.name])[c.name];
      fx = new ManagerFixture();
      server = await ModelServer.start({ file: c.file, content });
      const home = path.join(fx.tmp, 'home');
      const preset = findProfile(builtinProfiles, c.name);
      const profile: Profile = {
        ...preset,
        command: bin,
        args: c.args?.(preset) ?? preset.args,
        env: { ...homeEnv(home), ...cliServerEnv(c.name, server.url, home) },
        // Each CLI keeps its state (config, sessions, caches) in this throwaway HOME.
        sandbox: { allowedHosts: ['127.0.0.1'], writablePaths: [home] },
      };
      const manager = fx.manager({
        profiles: () => [profile],
        sandbox: new BubblewrapSandbox({ sandboxScript, runtime: process.execPath }),
        settings: () => ({ branchPrefix: 'agents', logDir: path.join(fx!.tmp, 'logs'), agentTimeoutMs: 120_000 }),
      });
      const started = Date.now();
      const { id } = await manager.dispatch({ prompt: cliPrompts[c.name], profile: c.name, folder: fx.repo });
      await manager.whenEnded(id);
      await manager.refreshChanges(id);
      const record = manager.get(id);
      const log = fs.readFileSync(record.logPath!, 'utf8');
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(`      ${c.name} sandboxed: ${record.status} in ${seconds} s`);
      assert.equal(record.status, 'succeeded', `${record.status} ${record.error ?? ''}\n${log.slice(-3000)}`);
      assert.deepEqual(record.sandbox, { allowedHosts: ['127.0.0.1'], writablePaths: [home] });
      const worktree = record.worktreePath!;
      assert.equal(fs.readFileSync(path.join(worktree, c.file), 'utf8').trim(), content.trim());
      assert.deepEqual(record.activity?.denials ?? [], [], 'no permission was denied');
      assert.deepEqual(
        record.changedFiles.map((f) => f.path),
        [c.file],
      );
      assert.equal(git(fx.repo, 'status', '--porcelain'), '', 'the main checkout is untouched');
      const calls = server.modelCalls(c.api);
      assert.ok(
        calls.some((r) => r.answered === 'tool'),
        'the model was reached from inside the sandbox',
      );
      assert.equal(calls[calls.length - 1].answered, 'text', 'the run ended with the answer after the tool result');

      // A follow-up runs the sandboxed continue arguments (the CLI's resume, auto-approved too).
      const before = server.modelCalls(c.api).length;
      await manager.followUp(id, 'Now answer DONE again.');
      await manager.whenEnded(id);
      const again = manager.get(id);
      const fullLog = fs.readFileSync(again.logPath!, 'utf8');
      assert.equal(again.status, 'succeeded', `${again.status} ${again.error ?? ''}\n${fullLog.slice(-3000)}`);
      assert.equal(again.runs?.length, 2, 'one follow-up run');
      assert.ok(server.modelCalls(c.api).length > before, 'the follow-up reached the model');
      assert.deepEqual(again.activity?.denials ?? [], [], 'no permission was denied in the follow-up');
    });
  }
});
