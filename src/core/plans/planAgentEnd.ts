/**
 * The end of a plan task's agent as the plan counts it. A pause on its provider's quota is not an
 * end: the agent resumes by itself as a follow-up (core/agents/quotaResumer.ts) and the task waits
 * for that run. Stop Plan (or Stop) on a paused agent ends the wait: it is then stopped.
 */
import { isActive, type AgentRecord } from '../agent';
import type { AgentManager } from '../agents';

type Manager = Pick<AgentManager, 'whenEnded' | 'onDidChangeAgent'>;

export async function agentEnd(manager: Manager, id: string): Promise<AgentRecord> {
  for (;;) {
    // Listening before asking: a change between the answer and the wait is not missed.
    const changed = nextChange(manager, id);
    const ended = await manager.whenEnded(id);
    if (ended.status !== 'paused' && !isActive(ended.status)) {
      changed.dispose();
      return ended;
    }
    await changed.promise;
  }
}

function nextChange(manager: Manager, id: string): { promise: Promise<void>; dispose(): void } {
  let dispose = () => undefined as void;
  const promise = new Promise<void>((resolve) => {
    const sub = manager.onDidChangeAgent((e) => {
      if (e.id === id) {
        sub.dispose();
        resolve();
      }
    });
    dispose = () => sub.dispose();
  });
  return { promise, dispose };
}
