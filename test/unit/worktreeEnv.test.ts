// parallelAgents.worktreeEnv: the templates (parsing, port keys, expansion, the env file) and the
// port allocator, with real sockets: a port the test listens on is never handed out.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as net from 'node:net';
import { join } from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import { AgentError } from '../../src/core/errors';
import { PortAllocator, defaultPortRange, parsePortRange } from '../../src/core/agents/portAllocator';
import {
  agentPorts,
  envFileText,
  expandWorktreeEnv,
  parseWorktreeEnv,
  portKeys,
} from '../../src/core/agents/worktreeEnv';
import { tcpPortProbe } from '../../src/node/portProbe';
import { englishMessage, textOf } from '../../src/ui/errorText';
import { repoRoot } from '../harness/paths';

const bundleEs = JSON.parse(readFileSync(join(repoRoot, 'l10n/bundle.l10n.es.json'), 'utf8')) as Record<string, string>;

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(AgentError.is(e), String(e));
    return e.code;
  }
  return assert.fail('no error thrown');
}

function record(id: string, patch: Partial<AgentRecord>): AgentRecord {
  return {
    id,
    title: id,
    prompt: 'p',
    profile: 'demo',
    mode: 'headless',
    isolation: 'worktree',
    status: 'running',
    repoRoot: '/repo',
    cwd: `/wt/${id}`,
    baseSha: 'abc',
    createdAt: 1,
    changedFiles: [],
    ...patch,
  };
}

/** Listens on a port the OS picks, on 127.0.0.1; resolves with it and the server. */
function listenAnywhere(): Promise<{ port: number; server: net.Server }> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => resolve({ port: (server.address() as net.AddressInfo).port, server }));
  });
}

describe('worktreeEnv templates', () => {
  it('expands ${agentIndex}, a port per ${freePort} and one port per ${freePort:name}', () => {
    const template = parseWorktreeEnv({
      PORT: '${freePort:web}',
      URL: 'http://localhost:${freePort:web}/app${agentIndex}',
      EXTRA: '${freePort}-${freePort}',
      DB: 'db_${agentIndex}',
      PLAIN: 'no placeholders $HOME {x}',
    });
    assert.deepEqual(portKeys(template), ['web', 'EXTRA', 'EXTRA#2']);
    const vars = expandWorktreeEnv(template, 3, { web: 3101, EXTRA: 3102, 'EXTRA#2': 3103 });
    assert.deepEqual(vars, {
      PORT: '3101',
      URL: 'http://localhost:3101/app3',
      EXTRA: '3102-3103',
      DB: 'db_3',
      PLAIN: 'no placeholders $HOME {x}',
    });
    assert.equal(envFileText(vars).split('\n')[1], 'URL=http://localhost:3101/app3');
    assert.ok(envFileText(vars).endsWith('PLAIN=no placeholders $HOME {x}\n'));
  });

  it("never gives an anonymous port a named port's key", () => {
    const template = parseWorktreeEnv({ PORT: '${freePort}', API: '${freePort:PORT}' });
    assert.deepEqual(portKeys(template), ['PORT#2', 'PORT']);
    assert.deepEqual(expandWorktreeEnv(template, 1, { PORT: 1, 'PORT#2': 2 }), { PORT: '2', API: '1' });
  });

  it('takes an unset or empty setting as no variables', () => {
    assert.deepEqual(parseWorktreeEnv(undefined), []);
    assert.deepEqual(parseWorktreeEnv({}), []);
  });

  it('refuses bad names, values and placeholders with a code naming them', () => {
    assert.equal(
      codeOf(() => parseWorktreeEnv(['PORT'])),
      'worktreeEnvNotObject',
    );
    assert.equal(
      codeOf(() => parseWorktreeEnv('PORT=1')),
      'worktreeEnvNotObject',
    );
    assert.equal(
      codeOf(() => parseWorktreeEnv({ '1PORT': '1' })),
      'worktreeEnvBadName',
    );
    assert.equal(
      codeOf(() => parseWorktreeEnv({ 'MY-PORT': '1' })),
      'worktreeEnvBadName',
    );
    assert.equal(
      codeOf(() => parseWorktreeEnv({ PORT: 3000 })),
      'worktreeEnvBadValue',
    );
    assert.equal(
      codeOf(() => parseWorktreeEnv({ PORT: 'a\nB=2' })),
      'worktreeEnvBadValue',
    );
    assert.equal(
      codeOf(() => parseWorktreeEnv({ PORT: '${freeport}' })),
      'worktreeEnvBadPlaceholder',
    );
    assert.equal(
      codeOf(() => parseWorktreeEnv({ PORT: '${freePort:}' })),
      'worktreeEnvBadPlaceholder',
    );
    assert.throws(
      () => parseWorktreeEnv({ PORT: '${HOME}' }),
      (e) => AgentError.is(e) && /PORT uses \$\{HOME\}, which is not a placeholder/.test(englishMessage(e)),
    );
  });

  it('reads port ranges and refuses malformed ones', () => {
    assert.deepEqual(parsePortRange(undefined), defaultPortRange);
    assert.deepEqual(parsePortRange(' 4000 - 4010 '), { from: 4000, to: 4010 });
    assert.deepEqual(parsePortRange('5000'), { from: 5000, to: 5000 });
    for (const bad of ['4010-4000', '80-90', '4000-70000', 'abc', '4000-', true]) {
      assert.equal(
        codeOf(() => parsePortRange(bad)),
        'invalidPortRange',
        String(bad),
      );
    }
  });

  it('counts ports as held until the agent is merged or discarded', () => {
    const env = { index: 1, ports: { web: 3100, PORT: 3101 }, vars: {} };
    assert.deepEqual(agentPorts(record('a', { status: 'succeeded', worktreeEnv: env })), [
      { key: 'web', port: 3100 },
      { key: 'PORT', port: 3101 },
    ]);
    assert.deepEqual(agentPorts(record('a', { status: 'merged', worktreeEnv: env })), []);
    assert.deepEqual(agentPorts(record('a', { status: 'discarded', worktreeEnv: env })), []);
    assert.deepEqual(agentPorts(record('a', {})), []);
  });
});

describe('PortAllocator with real sockets', () => {
  const servers: net.Server[] = [];
  afterEach(() => {
    servers.splice(0).forEach((s) => s.close());
  });

  it('skips a port in use and ports live agents hold; a merged agent gives its back', async () => {
    const { port: busy, server } = await listenAnywhere();
    servers.push(server);
    assert.equal(await tcpPortProbe.isFree(busy), false);
    const range = { from: busy, to: busy + 20 };
    const records = [
      record('held', { worktreeEnv: { index: 1, ports: { PORT: busy + 1 }, vars: {} } }),
      record('merged', { status: 'merged', worktreeEnv: { index: 2, ports: { PORT: busy + 2 }, vars: {} } }),
    ];
    const allocator = new PortAllocator(tcpPortProbe);
    const reservation = await allocator.reserve('/repo', ['a', 'b'], range, records);
    assert.ok(!Object.values(reservation.ports).includes(busy), 'the bound port is skipped');
    assert.ok(!Object.values(reservation.ports).includes(busy + 1), "a live agent's port is skipped");
    for (const port of Object.values(reservation.ports)) {
      assert.equal(await tcpPortProbe.isFree(port), true);
    }
    // Index 1 is held by the live agent of the same repository; the merged agent's 2 is free again.
    assert.equal(reservation.index, 2);
    assert.equal(new Set(Object.values(reservation.ports)).size, 2);
  });

  it('gives simultaneous reservations different ports and indexes until they are released', async () => {
    const allocator = new PortAllocator(tcpPortProbe);
    const { port: start, server } = await listenAnywhere();
    server.close();
    const range = { from: start, to: start + 30 };
    const all = await Promise.all([1, 2, 3, 4].map(() => allocator.reserve('/repo', ['PORT'], range, [])));
    assert.equal(new Set(all.map((r) => r.ports.PORT)).size, 4);
    assert.deepEqual(all.map((r) => r.index).sort(), [1, 2, 3, 4]);
    all[1].release();
    const again = await allocator.reserve('/repo', ['PORT'], range, []);
    assert.equal(again.index, all[1].index, 'a released index is given again');
  });

  it('refuses a third agent in a range of two, with a clear message in English and Spanish, reserving nothing', async () => {
    const { port: start, server } = await listenAnywhere();
    server.close();
    const range = { from: start, to: start + 1 };
    const allocator = new PortAllocator(tcpPortProbe);
    const first = await allocator.reserve('/repo', ['PORT'], range, []);
    const second = await allocator.reserve('/repo', ['PORT'], range, []);
    const error = await allocator.reserve('/repo', ['PORT'], range, []).then(
      () => assert.fail('a third port was handed out'),
      (e: unknown) => e,
    );
    assert.ok(AgentError.isCode(error, 'portRangeExhausted'));
    assert.deepEqual(error.data, { range: `${start}-${start + 1}`, needed: 1, free: 0 });
    assert.match(
      englishMessage(error),
      new RegExp(`No free port left in parallelAgents.portRange ${start}-${start + 1}`),
    );
    const template = textOf(error.code, error.data)!.template;
    assert.match(bundleEs[template], /No queda ningún puerto libre/);
    // Nothing was kept: once the two are released, the range serves two again.
    first.release();
    second.release();
    const ports = await Promise.all([1, 2].map(() => allocator.reserve('/repo', ['PORT'], range, [])));
    assert.deepEqual(ports.map((r) => r.ports.PORT).sort(), [start, start + 1]);
  });

  it('releases what it picked when a later key finds no port', async () => {
    const { port: start, server } = await listenAnywhere();
    server.close();
    const range = { from: start, to: start + 1 };
    const allocator = new PortAllocator(undefined);
    await assert.rejects(allocator.reserve('/repo', ['a', 'b', 'c'], range, []), (e) =>
      AgentError.isCode(e, 'portRangeExhausted'),
    );
    const both = await allocator.reserve('/repo', ['a', 'b'], range, []);
    assert.deepEqual(both.ports, { a: start, b: start + 1 });
    assert.equal(both.index, 1);
  });
});
