/**
 * A reviewer agent's findings, pure. The reviewer is asked to answer with one line per finding,
 *   FINDING <path>:<line>: <what to change>      (or <path>:<start>-<end> for a range)
 * and, when it has nothing to say, the line `NO FINDINGS`. A CLI's output holds much else (progress,
 * prose, markdown, JSON events whose strings carry the answer with escaped line breaks): findings are
 * read from every line and from every string inside a line that is JSON, each counted once.
 */

export interface Finding {
  /** As the reviewer named it, with forward slashes and no leading `./`. */
  readonly path: string;
  /** 1-based, inclusive. */
  readonly startLine: number;
  readonly endLine: number;
  readonly text: string;
}

export interface ReviewerAnswer {
  readonly findings: readonly Finding[];
  /** The reviewer said `NO FINDINGS` (and named none). */
  readonly nothingFound: boolean;
}

export const findingKeyword = 'FINDING';
export const noFindingsLine = 'NO FINDINGS';

// Leading list markers, quotes and emphasis a model may put around the keyword.
const decoration = String.raw`^\s*(?:(?:[-*+•>]|\d+[.)])\s*)*(?:\*\*|__|\x60)?`;
const findingPattern = new RegExp(
  `${decoration}${findingKeyword}(?:\\*\\*|__|\\x60)?:?\\s+\\x60?([^\\s\\x60]+?)\\x60?:(\\d+)(?:\\s*[-–]\\s*(\\d+))?\\x60?\\s*[:—–-]\\s*(.+?)\\s*$`,
);
const nothingPattern = new RegExp(`${decoration}${noFindingsLine}(?:\\*\\*|__|\\x60)?\\.?\\s*$`);

/** Reads the findings (in order of appearance, each once) from a reviewer's whole output. */
export function readFindings(output: string): ReviewerAnswer {
  const findings: Finding[] = [];
  const seen = new Set<string>();
  let nothing = false;
  for (const line of candidateLines(output)) {
    const finding = parseFinding(line);
    if (finding) {
      const key = `${finding.path}\n${finding.startLine}-${finding.endLine}\n${finding.text}`;
      if (!seen.has(key)) {
        seen.add(key);
        findings.push(finding);
      }
    } else if (nothingPattern.test(line)) {
      nothing = true;
    }
  }
  return { findings, nothingFound: nothing && findings.length === 0 };
}

/** One line of the answer as a finding, or undefined when it is not one. */
export function parseFinding(line: string): Finding | undefined {
  const match = findingPattern.exec(line);
  if (!match) {
    return undefined;
  }
  const path = match[1].replace(/\\/g, '/').replace(/^(?:\.\/)+/, '');
  const first = Number(match[2]);
  const last = match[3] === undefined ? first : Number(match[3]);
  const text = match[4].replace(/\s*(?:\*\*|__)$/, '').trim();
  if (path === '' || text === '' || first < 1) {
    return undefined;
  }
  return { path, startLine: Math.min(first, last), endLine: Math.max(first, last), text };
}

/** Every line of the output, then the lines of every string inside each line that parses as JSON. */
function* candidateLines(output: string): Generator<string> {
  for (const line of output.split(/\r?\n/)) {
    yield line;
    const trimmed = line.trim();
    if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) {
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      // Not JSON after all: `value` stays undefined, which holds no string.
    }
    for (const text of stringsIn(value, 0)) {
      yield* text.split(/\r?\n/);
    }
  }
}

function* stringsIn(value: unknown, depth: number): Generator<string> {
  if (typeof value === 'string') {
    yield value;
  } else if (
    value &&
    // Stryker disable next-line ConditionalExpression: equivalent, a number or boolean has no own values to walk
    typeof value === 'object' &&
    depth < 12
  ) {
    for (const item of Object.values(value)) {
      yield* stringsIn(item, depth + 1);
    }
  }
}
