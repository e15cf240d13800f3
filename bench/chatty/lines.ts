// What the chatty bench's writer (writer.ts) prints: deterministic lines, so that the bench can
// compare every log with the bytes its writer printed.

export interface WriterSpec {
  readonly index: number;
  readonly bytes: number;
  /** Created by the bench when every writer is ready. */
  readonly go: string;
  /** Created by this writer once it waits for `go`. */
  readonly ready: string;
  /** Created by this writer when it exits, all its output written. */
  readonly done: string;
  /** 'text': plain lines; 'claude': claude stream-json events (tool uses, then a result). */
  readonly format: 'text' | 'claude';
  /** Lines per write. */
  readonly block: number;
}

/** Line `i` of writer `index`: 60 to 160 bytes, some of them not ASCII. */
export function textLine(index: number, i: number): string {
  const words = 'output of a chatty agent that prints a lot of lines '.repeat(2).slice(0, 20 + ((i * 37) % 100));
  return `[agent ${index} line ${i}] ${i % 7 === 0 ? 'résumé ✓ → ' : ''}${words}\n`;
}

export function claudeLine(index: number, i: number): string {
  const event = {
    type: 'assistant',
    message: { content: [{ type: 'tool_use', name: 'Write', input: { file_path: `src/file${index}-${i}.txt` } }] },
  };
  return `${JSON.stringify(event)}\n`;
}

export function claudeResult(index: number, turns: number): string {
  const event = { type: 'result', subtype: 'success', num_turns: turns, result: `agent ${index} done`, usage: {} };
  return `${JSON.stringify(event)}\n`;
}

/** Every byte the writer prints, for the byte compare. */
export function expectedOutput(spec: WriterSpec): Buffer {
  const parts: string[] = [];
  for (const block of blocks(spec)) {
    parts.push(block);
  }
  return Buffer.from(parts.join(''));
}

export function* blocks(spec: WriterSpec): Generator<string> {
  const line = spec.format === 'claude' ? claudeLine : textLine;
  let written = 0;
  let i = 0;
  while (written < spec.bytes) {
    let block = '';
    for (let k = 0; k < spec.block && written + Buffer.byteLength(block) < spec.bytes; k++, i++) {
      block += line(spec.index, i);
    }
    written += Buffer.byteLength(block);
    yield block;
  }
  if (spec.format === 'claude') {
    yield claudeResult(spec.index, i);
  }
}
