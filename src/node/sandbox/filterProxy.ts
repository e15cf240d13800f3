/**
 * The network filter of a sandboxed agent: an HTTP proxy on a unix socket that lets CONNECT (HTTPS)
 * and plain-HTTP requests through only to the allowed hosts and answers 403 to the rest. The agent,
 * in a network namespace of its own, reaches it only through the bridge inside (sandboxMain.ts).
 */
import * as http from 'node:http';
import * as net from 'node:net';
import { hostAllowed } from '../../core/sandbox';

export interface FilterProxy {
  close(): Promise<void>;
}

/** Listens on `socketPath`; `log` gets one line per refused request (which host, never a header). */
export function startFilterProxy(
  socketPath: string,
  allowedHosts: readonly string[],
  log: (line: string) => void,
): Promise<FilterProxy> {
  const server = http.createServer((req, res) => forward(req, res, allowedHosts, log));
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const target = splitHostPort(req.url ?? '', 443);
    if (!target || !hostAllowed(allowedHosts, target.host)) {
      log(`[sandbox] refused CONNECT ${req.url ?? ''}: not in sandbox.allowedHosts`);
      client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    const upstream = net.connect(target.port, target.host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n'));
    client.on('error', () => upstream.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve({
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

function forward(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  allowedHosts: readonly string[],
  log: (line: string) => void,
): void {
  let url: URL | undefined;
  try {
    url = new URL(req.url ?? '');
  } catch {
    url = undefined;
  }
  if (!url || url.protocol !== 'http:' || !hostAllowed(allowedHosts, url.hostname)) {
    log(`[sandbox] refused ${req.method ?? ''} ${url?.host ?? req.url ?? ''}: not in sandbox.allowedHosts`);
    res.writeHead(403, { 'Content-Type': 'text/plain', Connection: 'close' }).end('refused by the sandbox\n');
    return;
  }
  const headers = { ...req.headers };
  delete headers['proxy-connection'];
  delete headers['proxy-authorization'];
  const upstream = http.request(
    { host: url.hostname, port: url.port || 80, path: `${url.pathname}${url.search}`, method: req.method, headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => res.writeHead(502).end());
  req.pipe(upstream);
}

/** `host:port` of a CONNECT request (`[::1]:443` too); undefined when it is not one. */
export function splitHostPort(value: string, defaultPort: number): { host: string; port: number } | undefined {
  const match = /^\[?([^\]]+?)\]?(?::(\d+))?$/.exec(value);
  if (!match || match[1] === '') {
    return undefined;
  }
  const port = match[2] === undefined ? defaultPort : Number(match[2]);
  return port > 0 && port < 65536 ? { host: match[1], port } : undefined;
}
