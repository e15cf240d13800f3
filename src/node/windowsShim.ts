/**
 * npm installs a CLI on Windows as a `.cmd` shim, which Node >= 20.12 refuses to spawn without a
 * shell (EINVAL), and which cmd.exe would run with the prompt's newlines and quotes mangled. The
 * shim only starts `node <script> %*` (or `<program> %*`): reading it gives what to run directly,
 * so the prompt reaches the agent byte for byte with no shell at all.
 */
import * as path from 'node:path';

/** What an npm `.cmd` shim runs: a script for Node, or a program, relative to the shim's folder. */
export interface CmdShimTarget {
  readonly target: string;
  readonly viaNode: boolean;
}

/**
 * Reads npm's cmd-shim text: its last command is `"%_prog%"  "%dp0%\<target>" %*` for a Node
 * script (`_prog` being `%dp0%\node.exe` when present, else `node`) or `"%dp0%\<target>" %*` for a
 * program. Anything else is not a shim we understand: undefined.
 */
export function parseCmdShim(text: string): CmdShimTarget | undefined {
  const match = /("%_prog%"\s+)?"%~?dp0%?\\?([^"%]+)"\s+%\*\s*$/i.exec(text.trimEnd());
  const target = match?.[2].replace(/^\\+/, '');
  if (!match || !target || path.win32.isAbsolute(target)) {
    return undefined;
  }
  return { target, viaNode: match[1] !== undefined };
}

export interface ShimLaunch {
  readonly file: string;
  readonly prefixArgs: readonly string[];
}

export interface ShimHost {
  readText(file: string): Promise<string | undefined>;
  isFile(file: string): Promise<boolean>;
  /** `node` on PATH, for a shim with no node.exe beside it (as the shim itself would run). */
  findNode(): Promise<string | undefined>;
}

/**
 * For a `.cmd` / `.bat` that is an npm shim, the program and leading arguments to run instead;
 * undefined for any other file (run as it is).
 */
export async function launchForShim(shim: string, host: ShimHost): Promise<ShimLaunch | undefined> {
  if (!/\.(cmd|bat)$/i.test(shim)) {
    return undefined;
  }
  const text = await host.readText(shim);
  const parsed = text === undefined ? undefined : parseCmdShim(text);
  if (!parsed) {
    return undefined;
  }
  const dir = path.win32.dirname(shim);
  const target = path.win32.join(dir, parsed.target);
  if (!parsed.viaNode) {
    return { file: target, prefixArgs: [] };
  }
  const besideShim = path.win32.join(dir, 'node.exe');
  const node = (await host.isFile(besideShim)) ? besideShim : await host.findNode();
  return node === undefined ? undefined : { file: node, prefixArgs: [target] };
}
