import * as assert from 'node:assert/strict';
import { englishPlanProblem } from '../../src/ui/planProblemText';
import { parseStrictJson as readStrictJson } from '../../src/util/strictJson';

/** The result, its syntax error worded in English as the UI words a plan file's. */
function parseStrictJson(text: string): { value: unknown } | { error: string } {
  const result = readStrictJson(text);
  return 'error' in result
    ? { error: englishPlanProblem({ field: '', code: 'invalidJson', data: result.error }) }
    : result;
}

describe('parseStrictJson (jsonc-parser, strict)', () => {
  it('gives the value of valid JSON, as JSON.parse does', () => {
    const text = '{"a": [1, -2.5e3, true, null, "x\\u00e9\\n"], "b": {}, "__proto__": {"c": 1}}';
    assert.deepEqual(parseStrictJson(text), { value: JSON.parse(text) });
    const value = (parseStrictJson(text) as { value: Record<string, unknown> }).value;
    assert.equal(Object.getPrototypeOf(value), Object.prototype, '__proto__ stays a plain key');
    assert.deepEqual(parseStrictJson(' \r\n[]\n'), { value: [] });
  });

  it('names the line, column and reason of the first error', () => {
    const cases: Array<[string, string]> = [
      ['[1 2]', 'line 1, column 4: expected "," or "]" in the array'],
      ['[1,\n 2,\n]', 'line 3, column 1: a trailing comma is not allowed in JSON'],
      ['{"a" 1}', 'line 1, column 6: expected ":" after the property name'],
      ["{'a': 1}", 'line 1, column 2: expected a property name in double quotes'],
      ['{"a": 1}}', 'line 1, column 9: unexpected text after the end of the JSON value'],
      ['{"a": 1} /* c */', 'line 1, column 10: unexpected text after the end of the JSON value'],
      ['[1, /* c */ 2]', 'line 1, column 5: expected a value: a string, number, object, array, true, false or null'],
      ['{"a": 1.}', 'line 1, column 7: invalid number'],
      ['{"a": -}', 'line 1, column 7: invalid number'],
      ['{"a": 1.2.3}', 'line 1, column 7: invalid number'],
      ['{"a": .5}', 'line 1, column 7: expected a value: a string, number, object, array, true, false or null'],
      ['{"a": "\\u12"}', 'line 1, column 9: invalid escape in a string'],
      [
        '{"a": "x\u0001"}',
        'line 1, column 9: a line break or control character inside a string must be escaped (e.g. \\n)',
      ],
      ['[[1]', 'line 1, column 5: unexpected end of the text; the array is not closed'],
      ['{"a":', 'line 1, column 6: unexpected end of the text; a value is missing'],
      ['   ', 'line 1, column 4: unexpected end of the text; a value is missing'],
      ['{\u00a0"a": 1}', 'line 1, column 2: expected a property name in double quotes'],
    ];
    for (const [text, message] of cases) {
      assert.deepEqual(parseStrictJson(text), { error: `invalid JSON at ${message}` }, JSON.stringify(text));
    }
  });
});
