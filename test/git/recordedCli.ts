// A stand-in for the claude CLI that is still a real process: it prints the JSON lines recorded
// from the real CLI (test/fixtures/agentOutput) in the worktree it runs in.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Profile } from '../../src/core/clis/profiles';

export const agentOutputFixtures = path.resolve(__dirname, '../../../test/fixtures/agentOutput');

/**
 * The prompt names the fixture; a second line names a gate file: the script prints the first two
 * lines (init and the first tool use), then waits for the gate before printing the rest. The
 * recorded worktree path becomes the real one, and the edit run really writes the file it reports.
 */
export const recordedCliScript = `
const fs = require('fs');
const path = require('path');
const [fixtures, prompt] = process.argv.slice(2);
const [name, gate] = prompt.split('\\n');
const text = fs.readFileSync(path.join(fixtures, name), 'utf8');
const recorded = /"cwd":"([^"]+)"/.exec(text)[1];
const lines = text.split(recorded).join(process.cwd()).split('\\n').filter((l) => l !== '');
const print = (some) => some.forEach((l) => process.stdout.write(l + '\\n'));
const head = gate ? 2 : lines.length;
const rest = () => {
  if (name === 'claude-edit.jsonl') {
    fs.mkdirSync('notes', { recursive: true });
    fs.writeFileSync('notes/hello.txt', 'hello from a real CLI\\n');
  }
  print(lines.slice(head));
};
print(lines.slice(0, head));
if (gate) {
  const timer = setInterval(() => {
    if (fs.existsSync(gate)) {
      clearInterval(timer);
      rest();
    }
  }, 20);
} else {
  rest();
}
`;

/** A headless profile running the script (written into `dir`) with claude's output format; the prompt names the fixture. */
export function recordedClaudeProfile(dir: string, name = 'recorded-claude'): Profile {
  const file = path.join(dir, 'recorded-claude.js');
  fs.writeFileSync(file, recordedCliScript);
  return {
    name,
    command: process.execPath,
    args: [file, agentOutputFixtures, '${prompt}'],
    mode: 'headless',
    output: 'claude-stream-json',
  };
}
