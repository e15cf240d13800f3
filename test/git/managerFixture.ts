// A real AgentManager on a temporary repository: real git, real demo-agent processes. Only the
// file watcher is quiet (tests refresh change sets explicitly) and state lives in memory.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import { AgentManager, type AgentManagerDeps } from '../../src/core/agents/agentManager';
import { AgentLanding } from '../../src/core/landing/agentLanding';
import type { FolderWatcher, Logger, StateStore } from '../../src/core/ports';
import { builtinProfiles } from '../../src/core/clis/profiles';
import { PathExecutableResolver } from '../../src/node/executableResolver';
import { NodeFileSystem } from '../../src/node/fileSystem';
import { NodeGit } from '../../src/node/git/createGit';
import { SupervisedRunner } from '../../src/node/supervisedRunner';
import { pidAlive } from '../../src/supervisor/processIdentity';

export const demoScript = path.resolve(__dirname, '../../../dist/demoAgent.js');
export const supervisorScript = path.resolve(__dirname, '../../../dist/supervisor.js');

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  }).trim();
}

export class MemoryStore implements StateStore {
  records: readonly AgentRecord[] = [];
  load() {
    return this.records;
  }
  async save(records: readonly AgentRecord[]) {
    this.records = JSON.parse(JSON.stringify(records));
  }
}

export const quiet: Logger = { info() {}, warn() {}, error() {} };

const quietWatcher: FolderWatcher = { watch: () => ({ dispose() {} }) };

export class ManagerFixture {
  readonly tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pa-manager-')));
  readonly repo = path.join(this.tmp, 'repo');
  readonly store = new MemoryStore();
  readonly git = new NodeGit();
  private readonly managers: AgentManager[] = [];
  private n = 0;

  constructor(files: Record<string, string> = { 'README.md': '# sample\n', 'app.js': 'console.log("hi");\n' }) {
    fs.mkdirSync(this.repo);
    git(this.repo, 'init', '-q', '-b', 'main');
    git(this.repo, 'config', 'user.name', 't');
    git(this.repo, 'config', 'user.email', 't@t');
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(this.repo, rel)), { recursive: true });
      fs.writeFileSync(path.join(this.repo, rel), text);
    }
    git(this.repo, 'add', '.');
    git(this.repo, 'commit', '-q', '-m', 'init');
  }

  manager(overrides: Partial<AgentManagerDeps> = {}): AgentManager {
    const manager = new AgentManager({
      git: this.git,
      fs: new NodeFileSystem(),
      worktreeSource: this.git,
      resolver: new PathExecutableResolver({ demoAgentScript: demoScript, runtime: process.execPath }),
      headlessRunner: this.headlessRunner(),
      terminalRunner: { start: () => assert.fail('no terminal agents in this suite') },
      watcher: quietWatcher,
      store: this.store,
      clock: { now: () => Date.now() },
      logger: { info() {}, warn() {}, error() {} },
      settings: () => ({ branchPrefix: 'agents', logDir: path.join(this.tmp, 'logs') }),
      profiles: () => [
        ...builtinProfiles,
        { name: 'missing', command: 'definitely-not-installed-cli', args: ['${prompt}'], mode: 'headless' },
      ],
      newId: () => `t${Date.now().toString(36)}${this.n++}`,
      processAlive: (pid) => pidAlive(pid),
      ...overrides,
    });
    this.managers.push(manager);
    return manager;
  }

  /** Runs headless agents as the extension does, under dist/supervisor.js; its state lives in this fixture's temp folder. */
  headlessRunner(graceMs = 1000): SupervisedRunner {
    return new SupervisedRunner({
      supervisorScript,
      runtime: process.execPath,
      stateDir: path.join(this.tmp, 'agents'),
      graceMs,
      pollMs: 100,
    });
  }

  /** Waits until the agent's run has ended and returns it with a fresh change set. */
  async finished(manager: AgentManager, id: string): Promise<AgentRecord> {
    for (let i = 0; i < 600; i++) {
      const r = manager.get(id);
      if (!['preparing', 'running', 'queued'].includes(r.status)) {
        await manager.refreshChanges(id);
        return manager.get(id);
      }
      await new Promise((res) => setTimeout(res, 50));
    }
    throw new Error(`agent ${id} did not finish`);
  }

  /** Dispatches `prompt` to the demo agent on the repository and returns its record once its run has ended. */
  async ran(manager: AgentManager, prompt: string, title: string): Promise<AgentRecord> {
    const record = await manager.dispatch({ prompt, profile: 'demo', folder: this.repo, title });
    return this.finished(manager, record.id);
  }

  async dispose(): Promise<void> {
    for (const m of this.managers) {
      for (const r of m.list()) {
        if (m.isRunning(r.id)) {
          await m.stop(r.id).catch(() => undefined);
        }
      }
      m.dispose();
    }
    fs.rmSync(this.tmp, { recursive: true, force: true });
  }
}

/** A fresh repository with one manager and the AgentLanding on it. */
export interface LandingSetUp {
  readonly fx: ManagerFixture;
  readonly manager: AgentManager;
  readonly landing: AgentLanding;
}

/**
 * For each test of the calling describe(): a LandingSetUp made before it and handed to `use`,
 * disposed of after it.
 */
export function eachWithLanding(use: (setUp: LandingSetUp) => void): void {
  let fx: ManagerFixture | undefined;
  beforeEach(() => {
    fx = new ManagerFixture();
    const manager = fx.manager();
    use({ fx, manager, landing: new AgentLanding(manager, fx.git, quiet) });
  });
  afterEach(() => fx?.dispose());
}
