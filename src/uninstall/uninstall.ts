// `vscode:uninstall`: VS Code runs this with Node, without its API, once the extension is
// uninstalled. It removes the warm worktree pools the extension kept (see node/poolList.ts).
import { poolListFile, removeRememberedPools } from '../node/poolList';

for (const line of removeRememberedPools(poolListFile())) {
  console.log(`[parallel-agents] ${line}`);
}
