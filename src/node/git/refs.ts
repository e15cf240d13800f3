/** Refs and branches. */
import { AgentError } from '../../core/errors';

/** Throws notAFullRef (reason gitFailed) unless `ref` is a full ref name. */
export function requireFullRef(ref: string): void {
  if (!ref.startsWith('refs/')) {
    throw new AgentError('notAFullRef', { ref });
  }
}
