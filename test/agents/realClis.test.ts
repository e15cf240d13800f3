// The real agent CLIs (Claude Code, Codex CLI, Gemini CLI, Copilot CLI, OpenCode) dispatched by a
// real AgentManager into real worktrees, each playing against a scripted model on loopback
// (modelServer.ts): offline, no key. The profile of each run is the built-in preset with only the
// command (the provisioned binary) and the environment (model server, throwaway HOME) changed.
// Not in the default unit spec: the `clis` stage of scripts/test.mjs provisions the CLIs
// (scripts/provision-clis.sh) and passes their paths in PA_CLIS_JSON; run alone, this file
// provisions them itself. Shared notes: real-agent-clis.md.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { builtinProfiles, findProfile, type Profile } from '../../src/core/clis/profiles';
import { git, ManagerFixture } from '../git/managerFixture';
import { offersTools, userMessages } from './chatCompletions';
import { cliPrompts, cliServerEnv, homeEnv, type CliName } from './cliEnv';
import { ModelServer, type ModelScript, type RecordedRequest, type ServerMode } from './modelServer';
import { type Clis, provisionedClis } from './provisionedClis';

interface CliCase {
  readonly name: CliName;
  /** The step the Agents view shows for the write (its profile's `output` parsed by agentEvents). */
  readonly step: string;
  readonly api: RecordedRequest['api'];
  readonly prompt: string;
  /** What a dead model server ends in: Claude gives up at once; the others keep retrying. */
  readonly whenDown: 'failed' | 'timed-out';
  /** The file the scripted model writes; default notes/hello.txt (Copilot's create makes no folder). */
  readonly file?: string;
}

const cases: readonly CliCase[] = [
  { name: 'claude', api: 'anthropic', whenDown: 'failed', step: 'Write notes/hello.txt', prompt: cliPrompts.claude },
  { name: 'codex', api: 'openai', whenDown: 'timed-out', step: 'Add notes/hello.txt', prompt: cliPrompts.codex },
  {
    name: 'gemini',
    api: 'gemini',
    whenDown: 'timed-out',
    step: 'write_file notes/hello.txt',
    prompt: cliPrompts.gemini,
  },
  {
    name: 'copilot',
    api: 'chat',
    whenDown: 'timed-out',
    step: 'create hello.txt',
    prompt: cliPrompts.copilot,
    file: 'hello.txt',
  },
  { name: 'opencode', api: 'chat', whenDown: 'timed-out', step: 'write notes/hello.txt', prompt: cliPrompts.opencode },
];
const names = cases.map((c) => c.name);

const script: ModelScript = { file: 'notes/hello.txt', content: 'hello from a real CLI\n' };
const scriptOf = (c: CliCase): ModelScript => ({ ...script, file: c.file ?? script.file });
const runLimitMs = 120_000;
/** How long a run against a dead server may retry before the agent timeout stops it. */
const downLimitMs = 15_000;
const timings: string[] = [];

/** One dispatch of one CLI against one server, in a fresh repository and a throwaway HOME. */
class CliRun {
  readonly fx = new ManagerFixture();
  readonly home = path.join(this.fx.tmp, 'home');
  readonly manager: AgentManager;

  constructor(
    readonly cli: CliCase,
    bin: string,
    url: string,
    limitMs: number,
    argsOf: (preset: Profile) => readonly string[] = (p) => p.args,
    patch: Partial<Profile> = {},
  ) {
    const preset = findProfile(builtinProfiles, cli.name);
    const env = { ...homeEnv(this.home), ...cliServerEnv(cli.name, url, this.home) };
    const profile: Profile = { ...preset, command: bin, args: argsOf(preset), env, ...patch };
    this.manager = this.fx.manager({
      profiles: () => [profile],
      settings: () => ({ branchPrefix: 'agents', logDir: path.join(this.fx.tmp, 'logs'), agentTimeoutMs: limitMs }),
    });
  }

  /** Dispatches and waits for the end of the run; the agent timeout bounds the wait. */
  async run(prompt: string): Promise<{ record: AgentRecord; log: string; seconds: number }> {
    const started = Date.now();
    const { id } = await this.manager.dispatch({
      prompt,
      profile: this.cli.name,
      folder: this.fx.repo,
      title: `${this.cli.name} test`,
    });
    await this.manager.whenEnded(id);
    await this.manager.refreshChanges(id);
    const record = this.manager.get(id);
    const log =
      record.logPath !== undefined && fs.existsSync(record.logPath) ? fs.readFileSync(record.logPath, 'utf8') : '';
    if (process.env.PA_CAPTURE_DIR) {
      // How the fixtures of test/unit/agentEvents.test.ts were recorded.
      fs.writeFileSync(
        path.join(process.env.PA_CAPTURE_DIR, `${this.cli.name}-${record.status}-${Date.now()}.log`),
        log,
      );
    }
    return { record, log, seconds: (Date.now() - started) / 1000 };
  }

  dispose(): Promise<void> {
    return this.fx.dispose();
  }
}

/** Processes whose working directory is inside `dir` (Linux /proc): a finished agent leaves none. */
function processesIn(dir: string): string[] {
  if (process.platform !== 'linux') {
    return [];
  }
  const found: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
      if (cwd === dir || cwd.startsWith(`${dir}/`)) {
        found.push(`${pid}: ${fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ')}`);
      }
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/** The JSON objects of a stream-json log (Claude, Gemini); other lines are skipped. */
function jsonLines(log: string): Array<Record<string, unknown>> {
  return log
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

const obj = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
/** Copilot's events carry their fields in `data`; OpenCode's in `part`. */
const data = (line: Record<string, unknown>) => obj(line.data);
const part = (line: Record<string, unknown>) => obj(line.part);

function alive(pid: number): boolean {
  try {
    return !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function waitFor<T>(probe: () => T | undefined, limitMs: number): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const found = probe();
    if (found !== undefined) {
      return found;
    }
    assert.ok(Date.now() < deadline, 'waited in vain');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Claude's final `result` line, which carries `permission_denials`. */
function claudeResult(log: string): Record<string, unknown> | undefined {
  return jsonLines(log).find((l) => l.type === 'result');
}

function describeRun(record: AgentRecord, log: string): string {
  return `status ${record.status}, exit ${record.exitCode ?? '-'}, signal ${record.signal ?? '-'}, error ${record.error ?? '-'}\n--- log tail ---\n${log.slice(-3000)}`;
}

describe('real agent CLIs against a scripted model', function () {
  this.timeout(180_000);
  let clis: Clis;
  let server: ModelServer | undefined;
  let cli: CliRun | undefined;

  const hostPwd = process.env.PWD;
  let strayDir: string;

  before(function () {
    this.timeout(600_000); // a cold provisioning downloads ~1.1 GB
    clis = provisionedClis(names);
    // OpenCode takes its working folder from PWD: should an agent inherit the host's, its edits
    // land here (and the tests fail), not in the checkout the tests were started from.
    strayDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-stray-pwd-'));
    process.env.PWD = strayDir;
  });

  after(() => {
    process.env.PWD = hostPwd;
    fs.rmSync(strayDir, { recursive: true, force: true });
  });

  afterEach(async () => {
    await cli?.dispose();
    await server?.close();
    cli = undefined;
    server = undefined;
  });

  after(() => console.log(`\n  [clis] per-run wall time:\n${timings.map((t) => `    ${t}`).join('\n')}`));

  async function start(
    c: CliCase,
    mode: ServerMode | 'down',
    limitMs = runLimitMs,
    argsOf?: (preset: Profile) => readonly string[],
    patch?: Partial<Profile>,
  ) {
    server = await ModelServer.start(scriptOf(c), mode === 'down' ? 'normal' : mode);
    const url = server.url;
    if (mode === 'down') {
      await server.close(); // the port is now closed: connections are refused
    }
    cli = new CliRun(c, clis[c.name], url, limitMs, argsOf, patch);
    return { server, cli };
  }

  for (const c of cases) {
    describe(c.name, () => {
      it('edits the file in its worktree: succeeded, the change set lists it, the model got the tool result', async () => {
        const { server: model, cli: run } = await start(c, 'normal');
        const { record, log, seconds } = await run.run(c.prompt);
        timings.push(`${c.name} edit: ${seconds.toFixed(1)} s`);
        assert.equal(record.status, 'succeeded', describeRun(record, log));
        const worktree = record.worktreePath as string;
        const file = scriptOf(c).file;
        assert.equal(fs.readFileSync(path.join(worktree, file), 'utf8').trim(), script.content.trim());
        assert.deepEqual(
          record.changedFiles.map((f) => f.path),
          [file],
        );
        assert.equal(git(worktree, 'status', '--porcelain'), file.includes('/') ? '?? notes/' : `?? ${file}`);
        assert.equal(git(run.fx.repo, 'status', '--porcelain'), '', 'the main checkout is untouched');
        assert.deepEqual(fs.readdirSync(strayDir), [], 'nothing written in the folder of the host');
        const calls = model.modelCalls(c.api);
        assert.ok(
          calls.some((r) => JSON.stringify(r.body).includes(JSON.stringify(c.prompt).slice(1, -1))),
          'the prompt reached the model verbatim',
        );
        assert.deepEqual(calls.filter((r) => r.answered === 'tool').length, 1, 'one write asked for');
        assert.equal(
          calls[calls.length - 1].answered,
          'text',
          'the run ended with the final answer, after the tool result',
        );
        assert.deepEqual(processesIn(worktree), []);
        // What the Agents view shows, parsed from the CLI's own JSON events while it ran.
        assert.equal(record.activity?.result, 'DONE', JSON.stringify(record.activity));
        assert.equal(record.activity?.step, c.step, JSON.stringify(record.activity));
        if (c.name === 'copilot') {
          // Copilot leaves its token counts (assistant.usage) out of its JSON: turns are what it tells.
          assert.equal(record.activity?.turns, 2, JSON.stringify(record.activity));
          assert.equal(record.activity?.outputTokens, undefined, JSON.stringify(record.activity));
        } else {
          assert.ok((record.activity?.outputTokens ?? 0) > 0, `tokens reported: ${JSON.stringify(record.activity)}`);
        }
        assert.equal(record.activity?.denials, undefined);
        if (c.name === 'claude') {
          assert.ok(
            (record.activity?.turns ?? 0) > 0 && record.activity?.costUsd !== undefined,
            JSON.stringify(record.activity),
          );
          const lines = jsonLines(log);
          const toolUses = lines.flatMap((l) =>
            ((l.message as { content?: Array<Record<string, unknown>> } | undefined)?.content ?? []).filter(
              (b) => b.type === 'tool_use',
            ),
          );
          assert.deepEqual(
            toolUses.map((b) => b.name),
            ['Write'],
          );
          const result = claudeResult(log);
          assert.equal(result?.subtype, 'success');
          assert.equal(result?.is_error, false);
          assert.deepEqual(result?.permission_denials, []);
        }
        if (c.name === 'gemini') {
          const lines = jsonLines(log);
          assert.deepEqual(
            lines.filter((l) => l.type === 'tool_use').map((l) => l.tool_name),
            ['write_file'],
          );
          assert.equal(lines.find((l) => l.type === 'result')?.status, 'success');
        }
        if (c.name === 'copilot') {
          const lines = jsonLines(log);
          assert.deepEqual(
            lines.filter((l) => l.type === 'tool.execution_start').map((l) => data(l).toolName),
            ['create'],
          );
          const result = lines.find((l) => l.type === 'result');
          assert.equal(result?.exitCode, 0, JSON.stringify(result));
          assert.deepEqual((result?.usage as { codeChanges: { filesModified: string[] } }).codeChanges.filesModified, [
            path.join(worktree, file),
          ]);
        }
        if (c.name === 'opencode') {
          // The task went on stdin: every call of the agent carries it byte for byte, not re-quoted.
          const agentCalls = calls.filter((r) => offersTools(r.body));
          assert.ok(agentCalls.length >= 2, `${agentCalls.length} agent calls`);
          for (const call of agentCalls) {
            assert.deepEqual(userMessages(call.body), [c.prompt]);
          }
          const titleCalls = calls.filter((r) => !offersTools(r.body));
          assert.deepEqual(
            titleCalls.map((r) => r.answered),
            ['text'],
            'one title call, without tools',
          );
          assert.deepEqual(record.activity, {
            step: c.step,
            turns: 2,
            inputTokens: 20,
            outputTokens: 10,
            costUsd: 0,
            result: 'DONE',
          });
          const lines = jsonLines(log);
          assert.deepEqual(
            lines.filter((l) => l.type === 'tool_use').map((l) => [part(l).tool, obj(part(l).state).status]),
            [['write', 'completed']],
          );
          assert.deepEqual(
            lines.filter((l) => l.type === 'step_finish').map((l) => part(l).reason),
            ['tool-calls', 'stop'],
          );
        }
      });

      it(`with the model server down: ${c.whenDown}, within the agent timeout`, async () => {
        const limit = c.whenDown === 'failed' ? runLimitMs : downLimitMs;
        const { cli: run } = await start(c, 'down', limit);
        const { record, log, seconds } = await run.run(c.prompt);
        timings.push(`${c.name} server down: ${seconds.toFixed(1)} s (${record.status})`);
        assert.equal(record.status, c.whenDown, describeRun(record, log));
        assert.ok(seconds < limit / 1000 + 15, `ended after ${seconds} s`);
        assert.deepEqual(record.changedFiles, []);
        assert.deepEqual(processesIn(record.worktreePath as string), [], 'the timeout ends the whole process group');
      });

      it('with every model call rejected (401): failed', async () => {
        const { server: model, cli: run } = await start(c, 'always-401');
        const { record, log, seconds } = await run.run(c.prompt);
        timings.push(`${c.name} 401: ${seconds.toFixed(1)} s`);
        assert.equal(record.status, 'failed', describeRun(record, log));
        assert.ok(model.modelCalls(c.api).length > 0, 'the CLI reached the server');
        assert.deepEqual(record.changedFiles, []);
        if (c.name === 'claude') {
          assert.equal(claudeResult(log)?.is_error, true, log);
        }
        // Their JSON says why: that text becomes the agent's error.
        if (c.name === 'copilot') {
          assert.match(
            record.error ?? '',
            /^Authentication failed with provider at http:\/\/127\.0\.0\.1:\d+\/v1 \(HTTP 401\)/,
          );
          assert.equal(record.activity?.reportedError, true);
        }
        if (c.name === 'opencode') {
          assert.equal(record.error, 'Incorrect API key provided.');
          assert.equal(record.activity?.reportedError, true);
        }
      });

      if (c.name === 'claude') {
        it('answered 429 once (a usage limit that resets in 3 s): paused: quota, resumed by itself, the file written', async () => {
          const { server: model, cli: run } = await start(c, 'rate-limited-once');
          const { record, log, seconds } = await run.run(c.prompt);
          timings.push(`${c.name} 429 once: ${seconds.toFixed(1)} s to the pause`);
          assert.equal(record.status, 'paused', describeRun(record, log));
          assert.equal(record.quota?.resetGiven, true, JSON.stringify(record.quota));
          assert.deepEqual(record.changedFiles, [], 'nothing written before the limit');
          const done = await waitFor(() => {
            const now = run.manager.get(record.id);
            return ['succeeded', 'failed', 'paused'].includes(now.status) && now.runs && now.runs.length > 1
              ? now
              : undefined;
          }, 90_000);
          await run.manager.whenEnded(record.id);
          const end = run.manager.get(record.id);
          const after = fs.readFileSync(end.logPath!, 'utf8');
          assert.equal(end.status, 'succeeded', describeRun(end, after) + JSON.stringify(done.runs));
          assert.equal(
            fs.readFileSync(path.join(end.worktreePath!, script.file), 'utf8').trim(),
            script.content.trim(),
          );
          assert.equal(end.runs?.length, 2, 'the resume was one follow-up');
          assert.ok(model.modelCalls(c.api).length >= 3, 'the limited call, then the write and the answer');
        });

        it('a budget of $0.0001: given --max-budget-usd, Claude Code ends the run at it: stopped, over budget', async () => {
          const { cli: run } = await start(c, 'normal', runLimitMs, undefined, { budgetUsd: 0.0001 });
          const { record, log } = await run.run(c.prompt);
          const result = claudeResult(log);
          assert.equal(result?.subtype, 'error_max_budget_usd', describeRun(record, log));
          assert.equal(record.status, 'stopped', describeRun(record, log));
          assert.equal(record.overBudget?.budgetUsd, 0.0001, JSON.stringify(record.overBudget));
          assert.equal(record.error, undefined);
        });

        it('without a permission mode: exits 0 having written nothing; permission_denials makes it "needs permission"', async () => {
          const withoutMode = (p: Profile) =>
            p.args.filter((a, i, all) => a !== '--permission-mode' && all[i - 1] !== '--permission-mode');
          const { cli: run } = await start(c, 'normal', runLimitMs, withoutMode);
          const { record, log, seconds } = await run.run(c.prompt);
          timings.push(`claude permission denial: ${seconds.toFixed(1)} s`);
          // The trap: exit code 0 and an empty change set. Only the denials tell it did not do its task.
          assert.equal(record.exitCode, 0, describeRun(record, log));
          assert.equal(record.status, 'needs-permission', describeRun(record, log));
          assert.deepEqual(record.changedFiles, []);
          assert.deepEqual(record.activity?.denials, [`Write ${script.file}`]);
          assert.equal(record.activity?.result, 'DONE');
          const result = claudeResult(log);
          assert.equal(result?.subtype, 'success');
          assert.equal(result?.is_error, false);
          const denials = result?.permission_denials as Array<{
            tool_name: string;
            tool_use_id: string;
            tool_input: { file_path: string; content: string };
          }>;
          assert.equal(denials.length, 1, JSON.stringify(result));
          assert.equal(denials[0].tool_name, 'Write');
          assert.equal(denials[0].tool_input.file_path, path.join(record.worktreePath as string, script.file));
          // Each denial is also announced as it happens, before the result line.
          const announced = jsonLines(log).filter((l) => l.type === 'system' && l.subtype === 'permission_denied');
          assert.deepEqual(
            announced.map((l) => [l.tool_name, l.tool_use_id]),
            [['Write', denials[0].tool_use_id]],
          );
          console.log(
            `      result.permission_denials: ${JSON.stringify(denials)}\n      event: ${JSON.stringify(announced[0])}`,
          );
        });
      }

      if (c.name === 'copilot') {
        it('without --allow-all-tools: exits 0 having written nothing; the denied create makes it "needs permission"', async () => {
          const withoutAllow = (p: Profile) => p.args.filter((a) => a !== '--allow-all-tools');
          const { server: model, cli: run } = await start(c, 'normal', runLimitMs, withoutAllow);
          const { record, log, seconds } = await run.run(c.prompt);
          timings.push(`copilot permission denial: ${seconds.toFixed(1)} s`);
          assert.equal(record.exitCode, 0, describeRun(record, log));
          assert.equal(record.status, 'needs-permission', describeRun(record, log));
          assert.deepEqual(record.changedFiles, []);
          assert.ok(!fs.existsSync(path.join(record.worktreePath as string, 'hello.txt')));
          assert.deepEqual(record.activity?.denials, ['create hello.txt']);
          assert.equal(record.activity?.result, 'DONE');
          assert.deepEqual(
            model.modelCalls('chat').map((r) => r.answered),
            ['tool', 'text'],
          );
          const completed = jsonLines(log).filter((l) => l.type === 'tool.execution_complete');
          assert.deepEqual(
            completed.map((l) => [data(l).success, obj(data(l).error).code]),
            [[false, 'denied']],
          );
          const result = jsonLines(log).find((l) => l.type === 'result');
          assert.equal(result?.exitCode, 0);
        });

        it('stopping the agent ends the node wrapper and the native binary it runs (the whole process group)', async () => {
          // A dead server keeps copilot retrying for ~30 s: time to find its processes and stop it.
          const { cli: run } = await start(c, 'down', runLimitMs);
          const { id } = await run.manager.dispatch({
            prompt: c.prompt,
            profile: c.name,
            folder: run.fx.repo,
            title: 'copilot stop',
          });
          const { worktreePath, logPath } = run.manager.get(id);
          const worktree = worktreePath as string;
          // The native binary has started the session: it printed the task back.
          await waitFor(
            () =>
              (fs.existsSync(logPath as string) &&
                fs.readFileSync(logPath as string, 'utf8').includes('"user.message"')) ||
              undefined,
            60_000,
          );
          const native = processesIn(worktree).filter((p) => /copilot-linux-[a-z0-9]+\/copilot /.test(p));
          assert.equal(native.length, 1, processesIn(worktree).join('\n'));
          const all = processesIn(worktree);
          assert.ok(all.length >= 2, `the wrapper and the binary: ${all.join('\n')}`);
          await run.manager.stop(id);
          const record = run.manager.get(id);
          assert.equal(record.status, 'stopped');
          assert.deepEqual(processesIn(worktree), [], `left running after stop: was ${native.join('\n')}`);
          for (const p of all) {
            assert.ok(!alive(Number(p.split(':')[0])), `${p} is still alive`);
          }
        });
      }

      if (c.name === 'copilot' || c.name === 'opencode') {
        it('a follow-up (--continue) continues the session; its task arrives byte for byte (opencode: on stdin)', async () => {
          const { server: model, cli: run } = await start(c, 'normal');
          const { record, log } = await run.run(c.prompt);
          assert.equal(record.status, 'succeeded', describeRun(record, log));
          const before = model.modelCalls('chat').length;
          const followUp = 'Now say "bye" — and   keep  the spaces.\n';
          await run.manager.followUp(record.id, followUp);
          await run.manager.whenEnded(record.id);
          const again = run.manager.get(record.id);
          const fullLog = fs.readFileSync(again.logPath as string, 'utf8');
          assert.equal(again.status, 'succeeded', describeRun(again, fullLog));
          const later = model
            .modelCalls('chat')
            .slice(before)
            .filter((r) => offersTools(r.body));
          assert.ok(later.length > 0, 'the follow-up reached the model');
          for (const call of later) {
            // The session of the first run, then the follow-up exactly as typed (copilot puts the date first).
            const texts = userMessages(call.body).map((t) =>
              t.replace(/^<current_datetime>[^<]*<\/current_datetime>\n\n/, ''),
            );
            // Copilot trims the end of its --prompt itself (the argument carries the newline).
            assert.deepEqual(texts, [c.prompt, c.name === 'copilot' ? followUp.trimEnd() : followUp]);
          }
          assert.equal(again.activity?.result, 'DONE');
          assert.equal(again.activity?.turns, 1, JSON.stringify(again.activity));
          if (process.env.PA_CAPTURE_DIR) {
            fs.writeFileSync(path.join(process.env.PA_CAPTURE_DIR, `${c.name}-followup-${Date.now()}.log`), fullLog);
          }
        });
      }

      if (c.name === 'gemini') {
        it('a prompt that starts with "-" (a Markdown list) reaches the model verbatim and the edit succeeds (--prompt=...)', async () => {
          const { server: model, cli: run } = await start(c, 'normal');
          const prompt = '- Create notes/hello.txt saying hello.\n- Then answer DONE.';
          const { record, log } = await run.run(prompt);
          assert.equal(record.status, 'succeeded', describeRun(record, log));
          assert.doesNotMatch(log, /Not enough arguments following/);
          assert.ok(
            model.modelCalls().some((r) => JSON.stringify(r.body).includes(JSON.stringify(prompt).slice(1, -1))),
            'the prompt reached the model verbatim',
          );
        });
      }
    });
  }
});
