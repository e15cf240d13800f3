// A chatty agent for the `chatty` bench: `node writer.js <spec>` where spec is one JSON argv element
// (it arrives as the profile's prompt, see lines.ts). It says it is ready (creates `ready`), waits
// for the file `go` (a watch on its folder, no polling), then prints `bytes` of deterministic lines
// to stdout, `block` lines a write, and exits 0. The same script writes to a file (the baseline) or
// to the supervisor's pipe (an agent), so both write the same bytes; at its exit it creates `done`.
// An entry of its own: never imported.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { blocks, type WriterSpec } from './lines';

function write(spec: WriterSpec): void {
  const it = blocks(spec);
  const more = (): void => {
    for (let next = it.next(); !next.done; next = it.next()) {
      if (!process.stdout.write(next.value)) {
        process.stdout.once('drain', more);
        return;
      }
    }
  };
  more();
}

function main(): void {
  const spec = JSON.parse(process.argv[2]) as WriterSpec;
  let started = false;
  const start = () => {
    if (!started && fs.existsSync(spec.go)) {
      started = true;
      watcher.close();
      write(spec);
    }
  };
  const watcher = fs.watch(path.dirname(spec.go), start);
  process.on('exit', () => fs.writeFileSync(spec.done, ''));
  fs.writeFileSync(spec.ready, '');
  start();
}

main();
