/**
 * The types of planSchema.generated.js, which scripts/planValidator.mjs writes at build time from
 * schemas/agents-plan.schema.json: ajv's standalone validation code and the schema's field lists.
 */

/** One rule a value broke, as ajv reports it (without a message: ajv's words are not the user's). */
export interface SchemaError {
  readonly keyword: string;
  /** JSON pointer of the value, e.g. "/tasks/0/id"; "" for the whole plan. */
  readonly instancePath: string;
  readonly params: Readonly<Record<string, unknown>>;
}

declare const validate: {
  (data: unknown): boolean;
  /** The errors of the last call; every one of them (the code is compiled with allErrors). */
  errors?: SchemaError[] | null;
  readonly facts: {
    readonly planFields: readonly string[];
    readonly taskFields: readonly string[];
    readonly requiredPlanFields: readonly string[];
    readonly requiredTaskFields: readonly string[];
    readonly isolations: readonly string[];
    readonly taskIdPattern: string;
  };
};
export default validate;
