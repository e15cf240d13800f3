/** PortProbe on node:net: a port is free when a server can listen on it on 127.0.0.1 right now. */
import * as net from 'node:net';
import type { PortProbe } from '../core/ports';

export const tcpPortProbe: PortProbe = {
  isFree(port: number): Promise<boolean> {
    return new Promise((resolve) => {
      const server = net.createServer();
      server.unref();
      server.once('error', () => resolve(false));
      // exclusive: a cluster worker would otherwise share a handle and always succeed.
      server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
    });
  },
};
