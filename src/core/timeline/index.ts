/**
 * Timeline: the bars of a set of agents (queued, running, waiting for input, ended) and the figures
 * a dispatcher wants from them: wall time, summed running time, critical path, peak concurrency and
 * the speedup really obtained. Plain arithmetic over records; the panel lives in ui/timeline.
 */
export { barsFromAgents, computeFigures } from './timeline';
export type { TimelineBar, TimelineFigures } from './timeline';
