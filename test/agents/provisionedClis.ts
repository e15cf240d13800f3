// The real agent CLIs' paths: PA_CLIS_JSON when the test stage provisioned them
// (scripts/provision-clis.sh), else the script is run here (a cold run downloads them).
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CliName } from './cliEnv';

export type Clis = Record<CliName, string>;

/** The provisioned binaries; each of `names` is checked to exist. */
export function provisionedClis(names: readonly CliName[]): Clis {
  const json =
    process.env.PA_CLIS_JSON ??
    execFileSync('bash', [path.resolve(__dirname, '../../../scripts/provision-clis.sh')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
  const clis = JSON.parse(json) as Clis;
  for (const name of names) {
    assert.ok(clis[name] && fs.existsSync(clis[name]), `provisioned ${name} is missing: ${clis[name]}`);
  }
  return clis;
}
