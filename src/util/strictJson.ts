/**
 * Strict JSON read with jsonc-parser, the parser of VS Code's own JSON editor: the same syntax errors
 * at the same offsets as the editor shows, each as a reason code (worded by src/ui/planProblemText.ts)
 * with a 1-based line and column. Comments and trailing commas are errors, as in a `.json` file.
 */
import { ParseErrorCode, visit, type JSONVisitor } from 'jsonc-parser';

/** Why the text is not JSON, from what the parser expected where it stopped. */
export type JsonSyntaxReason =
  | 'invalidNumber'
  | 'trailingComma'
  | 'expectedProperty'
  | 'valueMissing'
  | 'expectedValue'
  | 'expectedColon'
  | 'objectNotClosed'
  | 'arrayNotClosed'
  | 'expectedCommaInObject'
  | 'expectedCommaInArray'
  | 'textAfterEnd'
  | 'controlInString'
  | 'invalidEscape'
  | 'stringNotClosed'
  /** JSON.parse refused a text jsonc-parser accepted: not expected. */
  | 'unreadable';

export interface JsonSyntaxError {
  readonly line: number;
  readonly column: number;
  readonly reason: JsonSyntaxReason;
}

export type StrictJsonResult = { readonly value: unknown } | { readonly error: JsonSyntaxError };

const options = { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false };

/** JSON text → its value, or its first syntax error. */
export function parseStrictJson(text: string): StrictJsonResult {
  const first = firstSyntaxError(text);
  if (first) {
    const before = text.slice(0, first.offset);
    const line = before.split('\n').length;
    const column = first.offset - before.lastIndexOf('\n');
    return { error: { line, column, reason: first.reason } };
  }
  try {
    return { value: JSON.parse(text) };
  } catch {
    // Not expected once jsonc-parser found no error; kept so that no text can throw out of here.
    return { error: { line: 1, column: 1, reason: 'unreadable' } };
  }
}

/** What the parser expects next: the wording of an error depends on it more than on the error code. */
type Expecting = 'value' | 'property' | 'colon' | 'comma' | 'end';

interface Located {
  readonly offset: number;
  readonly reason: JsonSyntaxReason;
}

function firstSyntaxError(text: string): Located | undefined {
  const stack: Array<'object' | 'array'> = [];
  let expecting: Expecting = 'value';
  let afterComma = false;
  let lastNumber: { offset: number; end: number } | undefined;
  let first: Located | undefined;
  const valueEnded = (): void => {
    expecting = stack.length === 0 ? 'end' : 'comma';
  };
  const visitor: JSONVisitor = {
    onObjectBegin: () => void (stack.push('object'), (expecting = 'property'), (afterComma = false)),
    onArrayBegin: () => void (stack.push('array'), (expecting = 'value'), (afterComma = false)),
    onObjectEnd: () => void (stack.pop(), valueEnded()),
    onArrayEnd: () => void (stack.pop(), valueEnded()),
    onObjectProperty: () => void ((expecting = 'colon'), (afterComma = false)),
    onLiteralValue: (value: unknown, offset, length) => {
      lastNumber = typeof value === 'number' ? { offset, end: offset + length } : undefined;
      afterComma = false;
      valueEnded();
    },
    onSeparator: (character) => {
      afterComma = character === ',';
      expecting = character === ':' || stack.at(-1) === 'array' ? 'value' : 'property';
    },
    onError: (code, offset, length) => {
      const context = { expecting, afterComma, lastNumber, container: stack.at(-1) };
      first ??= locate(text, code, offset, length, context);
    },
  };
  visit(text, visitor, options);
  return first;
}

interface Context {
  readonly expecting: Expecting;
  readonly afterComma: boolean;
  readonly lastNumber: { offset: number; end: number } | undefined;
  readonly container: 'object' | 'array' | undefined;
}

function locate(text: string, code: ParseErrorCode, offset: number, length: number, context: Context): Located {
  switch (code) {
    case ParseErrorCode.UnexpectedEndOfString:
    case ParseErrorCode.InvalidCharacter:
    case ParseErrorCode.InvalidEscapeCharacter:
    case ParseErrorCode.InvalidUnicode:
      return inString(text, offset, offset + length);
    case ParseErrorCode.UnexpectedEndOfNumber:
    case ParseErrorCode.InvalidNumberFormat:
      return { offset, reason: 'invalidNumber' };
    case ParseErrorCode.CloseBraceExpected:
    case ParseErrorCode.CloseBracketExpected:
      // Reported after the parser has already left the container.
      return {
        offset,
        reason: byContext(text, offset, {
          ...context,
          expecting: 'comma',
          container: code === ParseErrorCode.CloseBraceExpected ? 'object' : 'array',
        }),
      };
  }
  const { lastNumber } = context;
  // `01`, `1.2.3`: the scanner ends the number early and the rest looks like a second value.
  if (lastNumber?.end === offset && /[\d.]/.test(text[offset] ?? '')) {
    return { offset: lastNumber.offset, reason: 'invalidNumber' };
  }
  return { offset, reason: byContext(text, offset, context) };
}

function byContext(text: string, offset: number, context: Context): JsonSyntaxReason {
  const atEnd = offset >= text.length;
  const next = text[offset];
  const closing = context.container === 'object' ? '}' : ']';
  switch (context.expecting) {
    case 'property':
    case 'value':
      if (context.afterComma && next === closing) {
        return 'trailingComma';
      }
      if (context.expecting === 'property') {
        return 'expectedProperty';
      }
      if (atEnd) {
        return 'valueMissing';
      }
      return /[-\d]/.test(next) ? 'invalidNumber' : 'expectedValue';
    case 'colon':
      return 'expectedColon';
    case 'comma':
      if (context.container === 'object') {
        return atEnd ? 'objectNotClosed' : 'expectedCommaInObject';
      }
      return atEnd ? 'arrayNotClosed' : 'expectedCommaInArray';
    case 'end':
      return 'textAfterEnd';
  }
}

/** An error inside the string token at [start, end): the offending character, or the string's end. */
function inString(text: string, start: number, end: number): Located {
  for (let i = start + 1; i < end; i++) {
    const c = text[i];
    if (c < ' ') {
      return { offset: i, reason: 'controlInString' };
    }
    if (c === '\\') {
      if (!/^(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/.test(text.slice(i + 1, i + 6))) {
        return { offset: i + 1, reason: 'invalidEscape' };
      }
      i++;
    }
  }
  if (end < text.length && text[end] < ' ') {
    return { offset: end, reason: 'controlInString' };
  }
  return { offset: end, reason: 'stringNotClosed' };
}
