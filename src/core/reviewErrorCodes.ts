/**
 * The AgentError codes of src/core/review, with the data each message needs: accepting and
 * reverting an agent's lines, review comments and Review with Agent. Part of AgentErrorData
 * (errorCodes.ts); import them from errors.ts.
 */
type Empty = Record<string, never>;
type Titled = { readonly title: string };

export interface ReviewErrorData {
  /** `path` holds a NUL byte or is not UTF-8: it has no lines to take one by one. */
  binaryHunks: { readonly path: string };
  noChangeSelected: { readonly path: string };
  /** `lines` ("12" or "12–14", 1-based) are the workspace file's lines that are no longer the base's. */
  hunkNoLongerApplies: { readonly path: string; readonly lines: string };
  // review comments and Review with Agent
  emptyReview: Titled;
  emptyComment: Empty;
  /** The agent deleted `path` (or it is gone from its folder): it has no lines to comment on. */
  reviewFileDeleted: Titled & { readonly path: string };
  reviewFileNotChanged: Titled & { readonly path: string };
  /** Review with Agent on an agent whose folder is gone, or that kept no text file to comment on. */
  nothingToReview: Titled;
  /** Review with Agent while a reviewer already runs on that agent in this window. */
  reviewStillRunning: Titled;
  /** The reviewer's process could not be started. */
  reviewerNotStarted: { readonly profile: string; readonly error: string };
}
