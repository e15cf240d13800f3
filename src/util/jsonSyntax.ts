/**
 * A small JSON syntax scanner: where JSON.parse failed, as a line and column (1-based) with a
 * readable reason, for error messages about JSON the user wrote.
 */

/** The message for text that JSON.parse rejected with `e`: its line, column and reason when found. */
export function jsonSyntaxMessage(text: string, e: unknown): string {
  const located = locateJsonError(text);
  if (!located) {
    return `invalid JSON: ${e instanceof Error ? e.message : String(e)}`;
  }
  const before = text.slice(0, located.offset);
  const line = before.split('\n').length;
  const column = located.offset - before.lastIndexOf('\n');
  return `invalid JSON at line ${line}, column ${column}: ${located.reason}`;
}

class JsonSyntaxError extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** Where JSON.parse failed: its own messages give no position for some errors (V8: "Unexpected token"). */
function locateJsonError(text: string): { offset: number; reason: string } | undefined {
  try {
    new JsonScanner(text).document();
    return undefined;
  } catch (e) {
    return e instanceof JsonSyntaxError ? { offset: e.offset, reason: e.reason } : undefined;
  }
}

class JsonScanner {
  private pos = 0;
  constructor(private readonly text: string) {}

  document(): void {
    this.value();
    this.space();
    if (this.pos < this.text.length) {
      this.fail('unexpected text after the end of the JSON value');
    }
  }

  private value(): void {
    this.space();
    const c = this.text[this.pos];
    if (c === '{' || c === '[') {
      this.members(c === '{' ? '}' : ']');
    } else if (c === '"') {
      this.string();
    } else if (/[-0-9]/.test(c ?? '')) {
      this.token(/-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\d.])/y, 'invalid number');
    } else if (c === undefined) {
      this.fail('unexpected end of the text; a value is missing');
    } else {
      this.token(/(?:true|false|null)\b/y, 'expected a value: a string, number, object, array, true, false or null');
    }
  }

  private members(close: '}' | ']'): void {
    const what = close === '}' ? 'object' : 'array';
    this.pos++;
    this.space();
    if (this.text[this.pos] === close) {
      this.pos++;
      return;
    }
    for (;;) {
      this.space();
      if (this.text[this.pos] === close) {
        this.fail(`a trailing comma is not allowed in JSON`);
      }
      if (close === '}') {
        if (this.text[this.pos] !== '"') {
          this.fail('expected a property name in double quotes');
        }
        this.string();
        this.space();
        this.expect(':', 'expected ":" after the property name');
      }
      this.value();
      this.space();
      const c = this.text[this.pos];
      this.pos++;
      if (c === close) {
        return;
      }
      if (c !== ',') {
        this.pos--;
        this.fail(
          c === undefined
            ? `unexpected end of the text; the ${what} is not closed`
            : `expected "," or "${close}" in the ${what}`,
        );
      }
    }
  }

  private string(): void {
    for (this.pos++; this.pos < this.text.length; this.pos++) {
      const c = this.text[this.pos];
      if (c === '"') {
        this.pos++;
        return;
      }
      if (c < ' ') {
        this.fail('a line break or control character inside a string must be escaped (e.g. \\n)');
      }
      if (c === '\\') {
        this.pos++;
        this.token(/["\\/bfnrt]|u[0-9a-fA-F]{4}/y, 'invalid escape in a string');
        this.pos--;
      }
    }
    this.fail('unexpected end of the text; a string is not closed');
  }

  private token(pattern: RegExp, reason: string): void {
    pattern.lastIndex = this.pos;
    const match = pattern.exec(this.text);
    if (!match) {
      this.fail(reason);
    }
    this.pos = pattern.lastIndex;
  }

  private expect(char: string, reason: string): void {
    if (this.text[this.pos] !== char) {
      this.fail(reason);
    }
    this.pos++;
  }

  private space(): void {
    while (/[ \t\n\r]/.test(this.text[this.pos] ?? '')) {
      this.pos++;
    }
  }

  private fail(reason: string): never {
    throw new JsonSyntaxError(this.pos, reason);
  }
}
