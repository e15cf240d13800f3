/**
 * Plans: a plan file read and checked, its tasks run as a dependency graph (each task an agent,
 * landed in order), runs kept across reloads, and the planning request to an agent that writes a
 * plan.
 */
export { parsePlan } from './plan';
export { problemAt } from './planProblems';
export { taskCandidates } from './planBestOf';
export type { PlanRun } from './planRun';
export { PlanService, type PlanServiceOptions } from './planService';
export type { Plan, PlanRunRecord, PlanTask, TaskState, WindowId } from './planTypes';
export type { PlanProblem, PlanProblemCode, PlanProblemData } from './planProblems';
export { extractPlanJson, planningPrompt, readPlanningRequest, replyText } from './planningRequest';
