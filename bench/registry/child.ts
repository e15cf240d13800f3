// A second (third, ...) window on the registry, in its own Node process, running the real
// RegistryStore from out/: started by propagation.ts and activationCost.ts with fork().
//   watch <registry> <prefix>            reports each record from elsewhere whose id starts with prefix
//   write <registry> <repoRoot> <name> <pauseMs>   rewrites its own record until told to stop
//   load  <registry> <repoRoot>          times what activation does with the registry, then exits
import { type LoadFigures, timeActivationLoad } from './loadSteps';
import { BenchWindow, sampleAgentRecord } from './window';

export type ChildMessage =
  | { readonly kind: 'ready'; readonly records: number }
  | { readonly kind: 'seen'; readonly id: string; readonly title: string; readonly at: number }
  | { readonly kind: 'wrote'; readonly writes: number; readonly failures: number; readonly seconds: number }
  | ({ readonly kind: 'loaded' } & LoadFigures);

function send(message: ChildMessage): void {
  process.send?.(message);
}

function onStop(body: () => Promise<void> | void): void {
  process.on('message', (m: { kind?: string }) => {
    if (m.kind === 'stop') {
      void Promise.resolve(body()).finally(() => process.disconnect());
    }
  });
}

function watch(registry: string, prefix: string): void {
  const window = new BenchWindow(registry, (records, at) => {
    for (const r of records) {
      if (r.id.startsWith(prefix)) {
        send({ kind: 'seen', id: r.id, title: r.title, at });
      }
    }
  });
  send({ kind: 'ready', records: window.size });
  onStop(() => window.dispose());
}

function write(registry: string, repoRoot: string, name: string, pauseMs: number): void {
  const window = new BenchWindow(registry);
  let stopped = false;
  let writes = 0;
  let failures = 0;
  const started = Date.now();
  const loop = (async () => {
    for (let n = 0; !stopped; n++) {
      const record = sampleAgentRecord(`${name}-${n % 4}`, repoRoot, n);
      await window.put({ ...record, status: 'running', title: `${name} write ${n}` }).then(
        () => writes++,
        () => failures++,
      );
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  })();
  send({ kind: 'ready', records: window.size });
  onStop(async () => {
    stopped = true;
    await loop;
    send({ kind: 'wrote', writes, failures, seconds: (Date.now() - started) / 1000 });
    window.dispose();
  });
}

const [role, ...args] = process.argv.slice(2);
if (role === 'watch') {
  watch(args[0], args[1]);
} else if (role === 'write') {
  write(args[0], args[1], args[2], Number(args[3]));
} else if (role === 'load') {
  send({ kind: 'loaded', ...timeActivationLoad(args[0], args[1]) });
  process.disconnect();
} else {
  console.error(`unknown role ${role}; the bench starts this file itself`);
  process.exitCode = 2;
}
