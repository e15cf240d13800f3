/** The types of the registry's store (registryStore.ts): its options and what it keeps of each record. */
import type { Logger } from '../../core/ports';
import type { WriteHealth } from './writeHealth';

export type RegistryKind = 'agents' | 'plans';

export interface StoredRecord {
  readonly id: string;
  readonly repoRoot: string;
}

export interface RegistryStoreOptions {
  readonly kind: RegistryKind;
  /** The registry folders read at start: those of the window's repositories. */
  readonly registries: () => readonly string[];
  /** The registry folder of a record's repository; undefined when it has none (not a repository). */
  readonly registryOf: (repoRoot: string) => string | undefined;
  readonly logger: Logger;
  /** Told of writes the registry folder refused (read-only); such a write is skipped, not an error. */
  readonly health?: WriteHealth;
}

/** What this window last read or wrote of a record: the base of the next write's merge. */
export interface Known<T> {
  readonly file: string;
  readonly revision: number;
  readonly json: string;
  readonly record: T;
}
