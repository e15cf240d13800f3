/**
 * The last `maxChars` characters of a stream of text, kept without rebuilding a string per chunk:
 * the chunks are kept while they are needed and joined only when the text is asked for.
 */
export class TailText {
  private readonly chunks: string[] = [];
  private length = 0;

  constructor(private readonly maxChars: number) {}

  push(text: string): void {
    if (text === '') {
      return;
    }
    this.chunks.push(text);
    this.length += text.length;
    while (this.chunks.length > 1 && this.length - this.chunks[0].length >= this.maxChars) {
      this.length -= (this.chunks.shift() as string).length;
    }
  }

  get text(): string {
    const joined = this.chunks.join('');
    if (this.chunks.length > 1) {
      // Joined once: later pushes start from one chunk.
      this.chunks.splice(0, this.chunks.length, joined);
    }
    return joined.slice(-this.maxChars);
  }
}
