/**
 * Deleting big folders in a child process at the lowest priority. Node's fs.rm of a worktree
 * queues one request per file on libuv's small thread pool, which every other file operation of
 * the extension host shares: measured here, 10 stats took 3.8 s instead of 13 ms while 30,000
 * files were deleted in-process, and 16 worktrees added right after 16 discards waited minutes for
 * their registrations' file reads. The child has its own thread pool; the host's stays free.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import { lowerPriority } from './git/process';

/** Run by the child: each argument is a folder to delete; exit 1 when one could not be deleted. */
const script = [
  "const fs = require('fs');",
  'let failed = 0;',
  'for (const folder of process.argv.slice(1)) {',
  '  try { fs.rmSync(folder, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 }); }',
  '  catch (e) { failed++; process.stderr.write(folder + ": " + e.message + "\\n"); }',
  '}',
  'process.exitCode = failed ? 1 : 0;',
].join('\n');

/**
 * Deletes `folders` (absolute paths) apart from this process; resolves once they are gone. What the
 * child could not delete (it failed to start, or a folder resisted) is deleted here, so nothing
 * is left behind; rejects only when that fails too. Says where they were deleted.
 */
export async function deleteFoldersApart(
  folders: readonly string[],
  runtime = process.execPath,
): Promise<'apart' | 'here' | 'none'> {
  if (folders.length === 0) {
    return 'none';
  }
  const ok = await new Promise<boolean>((resolve) => {
    try {
      const child = spawn(runtime, ['-e', script, ...folders], {
        // Under Electron (VS Code's extension host) process.execPath is the app: this makes it Node.
        env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
        stdio: 'ignore',
        windowsHide: true,
      });
      lowerPriority(child.pid);
      child.on('error', () => resolve(false));
      child.on('close', (code) => resolve(code === 0));
    } catch {
      resolve(false);
    }
  });
  if (ok) {
    return 'apart';
  }
  await Promise.all(
    folders.map((folder) => fs.rm(folder, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 })),
  );
  return 'here';
}
