// Real agent processes under the real supervisor, for tests of SupervisedRunner: a temporary folder
// per test, runners whose every started or adopted process is stopped after the test, Node scripts
// as agents and the supervisor's status file as it stands.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { LaunchRequest } from '../../src/core/ports';
import {
  type SupervisedProcess,
  SupervisedRunner,
  type SupervisedRunnerOptions,
} from '../../src/node/supervisedRunner';
import { parseStatus, type SupervisorStatus } from '../../src/supervisor/protocol';

// Compiled to out/test/unit/; the bundles are in dist/ at the repository root.
export const supervisorScript = path.resolve(__dirname, '../../../dist/supervisor.js');

export interface SupervisedFixture {
  /** This test's temporary folder (real path); the agents' folder and their scripts and logs. */
  readonly dir: string;
  readonly stateDir: string;
  options(extra?: Partial<SupervisedRunnerOptions>): SupervisedRunnerOptions;
  runner(extra?: Partial<SupervisedRunnerOptions>): SupervisedRunner;
  /** A Node script (lines joined) run as the agent; its log is logs/<agentId>.log. */
  request(lines: string[], extra?: Partial<LaunchRequest>): LaunchRequest;
  statusOf(id: string): SupervisorStatus | undefined;
}

/** Registers the per-test set-up and clean-up in the calling describe; `defaults` go into every runner's options. */
export function supervisedFixture(prefix: string, defaults: Partial<SupervisedRunnerOptions> = {}): SupervisedFixture {
  let dir = '';
  const processes: SupervisedProcess[] = [];
  const track = (p: SupervisedProcess): SupervisedProcess => {
    processes.push(p);
    return p;
  };

  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  });

  afterEach(async () => {
    // Nothing a test started may outlive it.
    await Promise.all(processes.splice(0).map((p) => p.stop()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const fixture: SupervisedFixture = {
    get dir() {
      return dir;
    },
    get stateDir() {
      return path.join(dir, 'state');
    },
    options: (extra = {}) => ({
      supervisorScript,
      runtime: process.execPath,
      stateDir: fixture.stateDir,
      graceMs: 500,
      drainMs: 300,
      ...defaults,
      ...extra,
    }),
    runner: (extra = {}) => {
      const made = new SupervisedRunner(fixture.options(extra));
      const start = made.start.bind(made);
      const adopt = made.adopt.bind(made);
      made.start = (req) => track(start(req));
      made.adopt = (id, where) => {
        const adopted = adopt(id, where);
        return adopted && track(adopted);
      };
      return made;
    },
    request: (lines, extra = {}) => {
      const script = path.join(dir, `script-${Math.random().toString(36).slice(2)}.js`);
      fs.writeFileSync(script, lines.join('\n'));
      const agentId = extra.agentId ?? 'a1';
      return {
        agentId,
        title: agentId,
        file: process.execPath,
        args: [script],
        cwd: dir,
        env: {},
        logPath: path.join(dir, 'logs', `${agentId}.log`),
        ...extra,
      };
    },
    statusOf: (id) => {
      try {
        return parseStatus(fs.readFileSync(path.join(fixture.stateDir, `${id}.status.json`), 'utf8'));
      } catch {
        return undefined;
      }
    },
  };
  return fixture;
}
