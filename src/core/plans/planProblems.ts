/**
 * What can be wrong with a plan file, as codes with data: src/ui/planProblemText.ts words each one
 * (English and Spanish). A problem names the field it is about; the task is the one at that field.
 */
import type { JsonSyntaxReason } from '../../util/strictJson';

type Empty = Record<string, never>;

/** Each problem and the data its message needs. */
export interface PlanProblemData {
  /** The text is not JSON; line and column are 1-based. */
  invalidJson: { readonly line: number; readonly column: number; readonly reason: JsonSyntaxReason };
  notAnObject: Empty;
  /** `known`: the fields the object may have, in the schema's order. */
  unknownField: { readonly name: string; readonly known: readonly string[] };
  missing: { readonly name: string };
  /** Not a string, or only white space. */
  notText: { readonly name: string };
  baseNotText: Empty;
  schemaNotString: Empty;
  /** `value`: the JSON value found. */
  maxParallelNotPositive: { readonly value: unknown };
  tasksNotArray: Empty;
  tasksEmpty: Empty;
  taskNotObject: Empty;
  badTaskId: Empty;
  /** `first`: the index of the task that has the id first. */
  duplicateTaskId: { readonly first: number };
  unknownProfile: { readonly profile: string; readonly known: readonly string[] };
  badIsolation: { readonly value: unknown };
  /** bestOf is not a whole number from min to max (bestOfLimits). */
  badBestOf: { readonly value: unknown; readonly min: number; readonly max: number };
  dependsOnNotArray: Empty;
  /** dependsOn[index] is not a string, or only white space. */
  dependencyNotText: { readonly index: number };
  /** dependsOn[index] is a string no task id can be. */
  dependencyBadId: { readonly index: number; readonly value: string };
  dependsOnItself: Empty;
  unknownDependency: { readonly dependency: string };
  repeatedDependency: { readonly dependency: string };
  /** From the task the field names, following dependsOn, back to it. */
  dependencyCycle: { readonly cycle: readonly string[] };
  /** An agent asked for a plan answered without one. */
  noPlanInReply: Empty;
}

export type PlanProblemCode = keyof PlanProblemData;

export type PlanProblem = {
  readonly [C in PlanProblemCode]: {
    /** The task at `field` when it has an id (undefined for plan-level problems). */
    readonly taskId?: string;
    /** JSON-ish path of the field, e.g. "tasks[2].dependsOn[0]". */
    readonly field: string;
    readonly code: C;
    readonly data: PlanProblemData[C];
  };
}[PlanProblemCode];

/** The problem of `code` at `field`, its task left for the caller to name. */
export function problemAt<C extends PlanProblemCode>(field: string, code: C, data: PlanProblemData[C]): PlanProblem {
  return { field, code, data } as PlanProblem;
}
