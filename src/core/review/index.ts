/**
 * Review: taking an agent's work apart line by line. The changes between the base version of a
 * file and the agent's (a line diff that keeps every line's own ending), the parts of them a
 * selection in the diff editor picks, and those parts accepted into the workspace's file or
 * reverted in the agent's worktree, byte for byte: CRLF, mixed endings, a missing final line break,
 * tabs and any UTF-8 text come through unchanged; a binary file, or a workspace whose lines there
 * are no longer the base's, is refused with nothing written. And review progress: the files
 * marked viewed (unviewed again when the agent changes them) and the agents waiting for review.
 * And review comments on lines of the agent's changed files, the person's or a reviewer agent's
 * findings (Review with Agent), sent to it as one follow-up and marked addressed when its next run
 * changes those lines.
 */
export { acceptSelectedLines, agentDiff, revertSelectedLines } from './hunkActions';
export type { FileBytes, HunkDeps, HunkOutcome } from './hunkActions';
export { applyToTarget, revertInAgent } from './hunkApply';
export { selectChanges } from './hunkSelection';
export type { LineSelection } from './hunkSelection';
export { diffLines } from './lineDiff';
export type { LineChange } from './lineDiff';
export { bytesOf, splitLines, textOf } from './textLines';
export type { Lines } from './textLines';
export {
  deletedStamp,
  isViewed,
  keptMarks,
  pathsToStamp,
  reviewOrder,
  reviewQueue,
  sameMarks,
  viewedCount,
} from './viewedFiles';
export {
  awaitingCheck,
  linesChanged,
  linesOf,
  nearLines,
  pendingComments,
  quoteLines,
  rangeText,
  reviewPrompt,
} from './reviewComments';
export type { CommentToSend } from './reviewComments';
export { ReviewComments } from './reviewService';
export type { NewComment, ReviewDeps, SentReview } from './reviewService';
export { readFindings, parseFinding, findingKeyword, noFindingsLine } from './reviewFindings';
export type { Finding, ReviewerAnswer } from './reviewFindings';
export { fileDiffText, placeFindings, reviewerPrompt, reviewRequestLine } from './reviewerPrompt';
export type { FileDiff, PlacedFinding, ReviewRequest } from './reviewerPrompt';
export { AgentReviewer } from './agentReviewer';
export type { ReviewerDeps, ReviewOptions, ReviewOutcome } from './agentReviewer';
