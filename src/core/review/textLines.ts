import { AgentError } from '../errors';

/** A text as its lines, each with its own ending ('\r\n', '\n', '\r', or none for a last line without one). */
export type Lines = readonly string[];

// fatal: bytes that are not UTF-8 are refused rather than replaced; ignoreBOM: a byte order mark
// stays in the text, so encoding the text again gives back the very same bytes.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/**
 * The text of a file's bytes, or an AgentError('binaryHunks') naming `path` when they hold a NUL byte
 * or are not valid UTF-8: such a file has no lines to take one by one. Valid UTF-8 decodes to a
 * string that encodes back to the same bytes, so nothing is lost on the way through.
 */
export function textOf(bytes: Uint8Array, path: string): string {
  if (bytes.includes(0)) {
    throw new AgentError('binaryHunks', { path });
  }
  try {
    return decoder.decode(bytes);
  } catch {
    throw new AgentError('binaryHunks', { path });
  }
}

export function bytesOf(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * The lines of `text` as an editor counts them: '\r\n', '\n' and a lone '\r' each end a line, and
 * the ending stays with its line. An empty text has no lines; a final line without an ending is a
 * line. Joining the lines gives back `text`.
 */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  // Stryker disable next-line EqualityOperator: equivalent, charCodeAt(text.length) is NaN, which ends no line
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) {
      const end = c === 13 && text.charCodeAt(i + 1) === 10 ? i + 2 : i + 1;
      lines.push(text.slice(start, end));
      start = end;
      i = end - 1;
    }
  }
  if (start < text.length) {
    lines.push(text.slice(start));
  }
  return lines;
}

/** Whether `line` ends in a line break (only a text's last line may not). */
export function hasEnding(line: string): boolean {
  const c = line.charCodeAt(line.length - 1);
  return c === 10 || c === 13;
}
