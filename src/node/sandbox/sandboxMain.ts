/**
 * dist/sandbox.js: the bridge inside a sandbox, run with argv only (no shell) where socat or nsenter is
 * missing (the supervisor serves the proxy outside: sandboxHost.ts).
 *   bridge <port> <socket> -- <agent> <args…>
 *     inside (a network namespace with only loopback): listens on 127.0.0.1:<port>, where the
 *     agent's HTTP(S)_PROXY points, passes each connection to <socket>, and runs the agent.
 * It passes SIGTERM, SIGINT and SIGHUP on to the agent and exits with its code.
 */
import { spawn } from 'node:child_process';
import * as net from 'node:net';

function runChild(argv: readonly string[]): void {
  const child = spawn(argv[0], argv.slice(1), { stdio: 'inherit', shell: false });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(signal, () => child.kill(signal));
  }
  child.on('error', (e) => {
    process.stderr.write(`[sandbox] could not start ${argv[0]}: ${e.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    process.exit(code ?? (signal ? 128 + (signalNumbers[signal] ?? 15) : 1));
  });
}

const signalNumbers: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

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
    runChild(command);
  });
}

function main(argv: readonly string[]): void {
  const dash = argv.indexOf('--');
  const [mode, ...head] = dash < 0 ? [] : argv.slice(0, dash);
  const command = argv.slice(dash + 1);
  if (mode === 'bridge' && head.length === 2 && command.length > 0) {
    bridge(Number(head[0]), head[1], command);
  } else {
    process.stderr.write('[sandbox] usage: sandbox.js bridge <port> <socket> -- <command>\n');
    process.exitCode = 2;
  }
}

if (require.main === module) {
  main(process.argv.slice(2));
}
