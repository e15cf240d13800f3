/**
 * dist/sandbox.js: the two ends of a sandboxed agent's network, run with argv only (no shell).
 *   outer <socket> <hostsJson> <privateDir> -- <bwrap> <args…>
 *     outside the sandbox: serves the filtering proxy on <socket>, runs bubblewrap, and when it
 *     ends closes the proxy, deletes <privateDir> and exits as bubblewrap did.
 *   bridge <port> <socket> -- <agent> <args…>
 *     inside (a network namespace with only loopback): listens on 127.0.0.1:<port>, where the
 *     agent's HTTP(S)_PROXY points, passes each connection to <socket>, and runs the agent.
 * Both pass SIGTERM, SIGINT and SIGHUP on to their child and exit with its code.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { startFilterProxy } from './filterProxy';

function runChild(argv: readonly string[], onEnd: () => Promise<void>): void {
  const child = spawn(argv[0], argv.slice(1), { stdio: 'inherit', shell: false });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(signal, () => child.kill(signal));
  }
  child.on('error', (e) => {
    process.stderr.write(`[sandbox] could not start ${argv[0]}: ${e.message}\n`);
    void onEnd().then(() => process.exit(127));
  });
  child.on('exit', (code, signal) => {
    void onEnd().then(() => process.exit(code ?? (signal ? 128 + (signalNumbers[signal] ?? 15) : 1)));
  });
}

const signalNumbers: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

async function outer(socketPath: string, hostsJson: string, privateDir: string, command: string[]): Promise<void> {
  fs.mkdirSync(path.join(privateDir, 'tmp'), { recursive: true, mode: 0o700 });
  const hosts = JSON.parse(hostsJson) as string[];
  const proxy = await startFilterProxy(socketPath, hosts, (line) => process.stderr.write(`${line}\n`));
  runChild(command, async () => {
    await proxy.close();
    fs.rmSync(privateDir, { recursive: true, force: true });
  });
}

function bridge(port: number, socketPath: string, command: string[]): void {
  const server = net.createServer((client) => {
    const upstream = net.connect(socketPath);
    client.pipe(upstream).on('error', () => client.destroy());
    upstream.pipe(client).on('error', () => upstream.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  server.listen(port, '127.0.0.1', () => {
    server.unref();
    runChild(command, async () => undefined);
  });
}

function main(argv: readonly string[]): void {
  const dash = argv.indexOf('--');
  const [mode, ...head] = dash < 0 ? [] : argv.slice(0, dash);
  const command = argv.slice(dash + 1);
  if (mode === 'outer' && head.length === 3 && command.length > 0) {
    outer(head[0], head[1], head[2], command).catch((e: Error) => {
      process.stderr.write(`[sandbox] could not start the network filter: ${e.message}\n`);
      fs.rmSync(head[2], { recursive: true, force: true });
      process.exit(126);
    });
  } else if (mode === 'bridge' && head.length === 2 && command.length > 0) {
    bridge(Number(head[0]), head[1], command);
  } else {
    process.stderr.write('[sandbox] usage: sandbox.js outer|bridge … -- <command>\n');
    process.exitCode = 2;
  }
}

if (require.main === module) {
  main(process.argv.slice(2));
}
