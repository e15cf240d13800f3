// A RegistryStore opened the way one window opens it: the registry folder of the test's repository
// (or the folder given), records placed by their repository's registry, a quiet logger unless the
// test wants to hear. Tests of several windows make one per window.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import type { ChangedElsewhere } from '../../src/core/ports';
import { registryDirSync } from '../../src/node/registry/location';
import { type RegistryStoreOptions, RegistryStore } from '../../src/node/registry/registryStore';

export const quietLogger = { info() {}, warn() {}, error() {} };

/** The store of one window on `registry`; `options` replace the defaults (kind 'agents'). */
export function openRegistryStore<T extends { readonly id: string; readonly repoRoot: string } = AgentRecord>(
  registry: string,
  options: Partial<RegistryStoreOptions> = {},
): RegistryStore<T> {
  return new RegistryStore<T>({
    kind: 'agents',
    registries: () => [registry],
    registryOf: (root) => registryDirSync(root),
    logger: quietLogger,
    ...options,
  });
}

/** The record the store tests write: an agent record's shape cut down to what the store reads. */
export interface TestRecord {
  readonly id: string;
  readonly repoRoot: string;
  readonly status: string;
  readonly note?: string;
}

export const testRecord = (id: string, patch: Partial<TestRecord> = {}): TestRecord => ({
  id,
  repoRoot: '/repo',
  status: 'running',
  ...patch,
});

/**
 * Stores standing for windows on one registry in a temporary folder, made fresh for each test of
 * the describe block that creates this (its mocha hooks); their warnings are collected, and the
 * stores disposed after each test.
 */
export class StoreWindows {
  tmp = '';
  registry = '';
  warnings: string[] = [];
  /** Disposed after each test. */
  readonly stores: RegistryStore<TestRecord>[] = [];
  readonly logger = { info() {}, warn: (m: string) => this.warnings.push(m), error() {} };

  constructor(prefix: string) {
    beforeEach(() => {
      this.tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
      this.registry = path.join(this.tmp, 'registry');
      this.warnings = [];
    });
    afterEach(() => {
      this.stores.splice(0).forEach((s) => s.dispose());
      fs.rmSync(this.tmp, { recursive: true, force: true });
    });
  }

  /** One window's store; every record is placed in this registry. */
  store(registries = () => [this.registry]): RegistryStore<TestRecord> {
    const registry = this.registry;
    const made = openRegistryStore<TestRecord>(registry, {
      registries,
      registryOf: () => registry,
      logger: this.logger,
    });
    this.stores.push(made);
    return made;
  }

  fileOf(id: string): string {
    return path.join(this.registry, 'agents', `${id}.json`);
  }

  /** The events `s` announces from now on, collected. */
  heard(s: RegistryStore<TestRecord>): ChangedElsewhere<TestRecord>[] {
    const events: ChangedElsewhere<TestRecord>[] = [];
    s.onDidChangeElsewhere((e) => events.push(e));
    return events;
  }
}
