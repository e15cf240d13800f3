// parallelAgents.worktreeEnv with a real AgentManager, real git and real processes: four agents
// dispatched at once each start an HTTP server on the port they were given, and all four answer;
// the env file and the setup command see the same variables; a full port range or a bad setting
// refuses the dispatch and leaves nothing behind (no worktree, branch, process or record).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { AgentError } from '../../src/core/errors';
import { builtinProfiles, type Profile } from '../../src/core/clis/profiles';
import type { ManagerSettings } from '../../src/core/ports';
import { tcpPortProbe } from '../../src/node/portProbe';
import { englishMessage } from '../../src/ui/errorText';
import { waitFor } from '../harness/waitFor';
import { ManagerFixture, git } from './managerFixture';
import { TerminalStandIn } from './terminalStandIn';

/** An "agent" that serves, on the PORT its environment gives, what it was given; it runs until stopped. */
const serverScript = `
const fs = require('fs');
const http = require('http');
const body = JSON.stringify({
  port: process.env.PORT,
  url: process.env.WEB_URL,
  index: process.env.AGENT_INDEX,
  cwd: process.cwd(),
  envFile: fs.readFileSync('.parallel-agents.env', 'utf8'),
});
http.createServer((req, res) => res.end(body)).listen(Number(process.env.PORT), '127.0.0.1');
`;

/** The setup command: writes what it saw into the worktree (it runs before the agent). */
const setupScript = `require('fs').writeFileSync('setup-saw.txt', process.env.PORT + ' ' + process.env.AGENT_INDEX)`;

function get(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', timeout: 1000 }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve(text));
    });
    req.on('error', () => resolve(undefined));
    req.on('timeout', () => req.destroy());
  });
}

/** A start for a range of free-looking ports: one the OS just handed out, plus room above it. */
function portBase(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(Math.min(port, 65000)));
    });
  });
}

describe('worktreeEnv: a running app per worktree (real git, real processes)', function () {
  this.timeout(90_000);
  let fx: ManagerFixture;
  let terminals: TerminalStandIn;
  let base: number;
  let env: Record<string, unknown>;
  let range: string;
  const profiles = (): Profile[] => [
    ...builtinProfiles,
    { name: 'server', command: process.execPath, args: ['-e', serverScript, '${prompt}'], mode: 'headless' },
    { name: 'server-terminal', command: process.execPath, args: ['-e', serverScript, '${prompt}'], mode: 'terminal' },
  ];
  const settings = (): ManagerSettings => ({
    branchPrefix: 'agents',
    logDir: path.join(fx.tmp, 'logs'),
    setupCommand: [process.execPath, '-e', setupScript],
    worktreeEnv: env,
    portRange: range,
  });
  const manager = () => fx.manager({ profiles, settings, portProbe: tcpPortProbe, terminalRunner: terminals });

  /** What git and the folders hold: worktrees, branches, folders under repo.worktrees. */
  const leftovers = () => ({
    worktrees: git(fx.repo, 'worktree', 'list', '--porcelain'),
    branches: git(fx.repo, 'branch', '--list'),
    folders: fs.existsSync(path.join(fx.tmp, 'repo.worktrees'))
      ? fs.readdirSync(path.join(fx.tmp, 'repo.worktrees'))
      : [],
  });

  beforeEach(async () => {
    fx = new ManagerFixture();
    terminals = new TerminalStandIn();
    base = await portBase();
    range = `${base}-${base + 39}`;
    env = { PORT: '${freePort:web}', WEB_URL: 'http://127.0.0.1:${freePort:web}/', AGENT_INDEX: '${agentIndex}' };
  });

  afterEach(async () => {
    terminals.killAll();
    await fx.dispose();
  });

  async function answers(m: AgentManager, id: string): Promise<Record<string, string>> {
    const port = m.get(id).worktreeEnv!.ports.web;
    const text = await waitFor(`agent ${id} answering on ${port}`, () => get(port), { timeoutMs: 30_000 });
    return JSON.parse(text) as Record<string, string>;
  }

  it('gives 4 agents dispatched at once their own port and index: each serves on its port, all 4 answer', async () => {
    const m = manager();
    const records = await Promise.all(
      [1, 2, 3, 4].map((i) => m.dispatch({ prompt: `app ${i}`, profile: 'server', folder: fx.repo, title: 'App' })),
    );
    const ports = records.map((r) => r.worktreeEnv!.ports.web);
    assert.equal(new Set(ports).size, 4, `distinct ports: ${ports.join(', ')}`);
    assert.deepEqual(records.map((r) => r.worktreeEnv!.index).sort(), [1, 2, 3, 4]);
    for (const port of ports) {
      assert.ok(port >= base && port <= base + 39, `${port} in ${range}`);
    }
    const replies = await Promise.all(records.map((r) => answers(m, r.id)));
    replies.forEach((reply, i) => {
      const r = records[i];
      assert.equal(reply.port, String(r.worktreeEnv!.ports.web));
      assert.equal(reply.url, `http://127.0.0.1:${r.worktreeEnv!.ports.web}/`);
      assert.equal(reply.index, String(r.worktreeEnv!.index));
      assert.equal(fs.realpathSync(reply.cwd), fs.realpathSync(r.cwd));
      assert.equal(
        reply.envFile,
        `PORT=${reply.port}\nWEB_URL=http://127.0.0.1:${reply.port}/\nAGENT_INDEX=${reply.index}\n`,
      );
      // The setup command ran first, with the same variables.
      assert.equal(fs.readFileSync(path.join(r.cwd, 'setup-saw.txt'), 'utf8'), `${reply.port} ${reply.index}`);
      // The env file is no change of the agent's: git ignores it (info/exclude); the setup's file is one.
      assert.equal(git(r.cwd, 'status', '--porcelain', '--untracked-files=all'), '?? setup-saw.txt');
      assert.equal(m.get(r.id).status, 'running');
    });
    for (const r of records) {
      await m.stop(r.id);
      assert.equal(m.get(r.id).status, 'stopped');
      assert.equal(await get(r.worktreeEnv!.ports.web), undefined, 'its server ended with it');
    }
  });

  it('refuses an agent when the port range is exhausted, leaving nothing behind; a discarded agent frees its port', async () => {
    range = `${base}-${base + 1}`;
    const m = manager();
    const [a, b] = await Promise.all(
      [1, 2].map((i) => m.dispatch({ prompt: `app ${i}`, profile: 'server', folder: fx.repo, title: `App ${i}` })),
    );
    await Promise.all([answers(m, a.id), answers(m, b.id)]);
    const before = leftovers();
    const error = await m.dispatch({ prompt: 'app 3', profile: 'server', folder: fx.repo, title: 'App 3' }).then(
      () => assert.fail('a third agent got a port of a range of two'),
      (e: unknown) => e,
    );
    assert.ok(AgentError.isCode(error, 'portRangeExhausted'), String(error));
    assert.equal(
      englishMessage(error),
      `No free port left in parallelAgents.portRange ${range}: the agent needs 1, 0 are free (the others are held by agents not yet merged or discarded, or in use). Merge or discard finished agents, or widen the range. Nothing was created.`,
    );
    assert.deepEqual(leftovers(), before, 'no worktree, branch or folder was made');
    // The same two records, in whatever order the list gives two made within one millisecond.
    assert.deepEqual(
      m
        .list()
        .map((r) => r.id)
        .sort(),
      [a.id, b.id].sort(),
      'no record was made',
    );
    assert.deepEqual(
      fs.readdirSync(path.join(fx.tmp, 'logs')).sort(),
      [`${a.id}.log`, `${b.id}.log`].sort(),
      'nothing ran',
    );
    // A stopped agent still holds its port (its app may run again for a review); a discarded one does not.
    await m.stop(a.id);
    await assert.rejects(m.dispatch({ prompt: 'app 3', profile: 'server', folder: fx.repo }), (e) =>
      AgentError.isCode(e, 'portRangeExhausted'),
    );
    m.transition(a.id, 'discarded');
    const c = await m.dispatch({ prompt: 'app 3', profile: 'server', folder: fx.repo, title: 'App 3' });
    assert.equal(c.worktreeEnv!.ports.web, a.worktreeEnv!.ports.web);
    assert.equal(c.worktreeEnv!.index, a.worktreeEnv!.index);
    assert.equal((await answers(m, c.id)).index, String(c.worktreeEnv!.index));
  });

  it('refuses a bad worktreeEnv before anything is made, with a message naming the variable', async () => {
    env = { 'WEB-PORT': '${freePort}' };
    const m = manager();
    const before = leftovers();
    const error = await m.dispatch({ prompt: 'x', profile: 'server', folder: fx.repo }).then(
      () => assert.fail('dispatched with a bad variable name'),
      (e: unknown) => e,
    );
    assert.ok(AgentError.isCode(error, 'worktreeEnvBadName'));
    assert.match(englishMessage(error), /"WEB-PORT" is not an environment variable name/);
    assert.deepEqual(leftovers(), before);
    assert.deepEqual(m.list(), []);
  });

  it('gives a terminal agent the variables in its environment', async () => {
    const m = manager();
    const r = await m.dispatch({ prompt: 'app', profile: 'server-terminal', folder: fx.repo, title: 'T' });
    const reply = await answers(m, r.id);
    assert.equal(reply.port, String(r.worktreeEnv!.ports.web));
    assert.equal(terminals.started.at(-1)?.env.PORT, reply.port);
    assert.equal(terminals.started.at(-1)?.env.AGENT_INDEX, '1');
  });
});
