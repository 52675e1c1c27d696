import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { locateJsonError, parseJson } from "../../src/switchboard/config-json.js";

describe("locateJsonError", () => {
  it.each([
    ['{\n  "a": { "b": 1, },\n}', 2, 16, 'trailing comma: JSON allows no "," before "}"'],
    ['{"a": [1, 2,]}', 1, 12, 'trailing comma: JSON allows no "," before "]"'],
    ['{\n  // servers\n  "a": 1\n}', 2, 3, "comments are not allowed in JSON"],
    ['{ "a": 1 /* x */ }', 1, 10, "comments are not allowed in JSON"],
    ['{\n  "a": 1\n  "b": 2\n}', 3, 3, 'missing "," between properties'],
    ['["a" "b"]', 1, 6, 'missing "," between array elements'],
    ['{"a": 1 ]', 1, 9, 'expected "," or "}" after a property value, found `]`'],
    ["[1 2]", 1, 4, 'expected "," or "]" after an array element, found `2`'],
    ["{ 'a': 1 }", 1, 3, "property names must be in double quotes, not single quotes"],
    ["{ \"a\": 'x' }", 1, 8, "strings must be in double quotes, not single quotes"],
    ["{ command: 1 }", 1, 3, 'property names must be in double quotes: write "command"'],
    ["{ 1: 1 }", 1, 3, "expected a property name in double quotes, found `1`"],
    ['{"a" 1}', 1, 6, 'expected ":" after the property name, found `1`'],
    ['{"a": tru}', 1, 7, "expected a value, found `tru`"],
    ['{"a": True}', 1, 7, "expected a value, found `True`"],
    ['{"a": }', 1, 7, "expected a value, found `}`"],
    ['{"a": 01}', 1, 8, "invalid number (leading zeros and incomplete fractions or exponents are not allowed)"],
    ['{"a": 1.}', 1, 8, "invalid number (leading zeros and incomplete fractions or exponents are not allowed)"],
    ['{"a": -}', 1, 7, "invalid number starting with `-`"],
    ['{"a": "\\q"}', 1, 8, 'invalid escape "\\q" in a string (write "\\\\" for a backslash)'],
    ['{"a": "\\u12"}', 1, 8, 'invalid escape: "\\u" needs four hex digits'],
    ['{"a": "x\ty"}', 1, 9, "control characters (such as tabs) must be escaped in strings"],
    ['{"a": "abc\n"}', 1, 7, 'unterminated string (a string must end with " on the same line)'],
    ['{"a": [1, 2', 1, 12, 'unexpected end of file; the array opened at line 1, column 7 needs a closing "]"'],
    ['{\n  "a": {\n    "b": 1\n  }\n', 5, 1, 'unexpected end of file; the object opened at line 1, column 1 needs a closing "}"'],
    ['{"a"', 1, 5, 'unexpected end of file; the object opened at line 1, column 1 needs a closing "}"'],
    ['{"a":', 1, 6, 'unexpected end of file; the object opened at line 1, column 1 needs a closing "}"'],
    ['{"a": 1}}', 1, 9, "unexpected `}` after the end of the JSON value"],
    ["", 1, 1, "the file is empty; expected a JSON object"],
    ["  \n ", 2, 2, "the file is empty; expected a JSON object"],
  ])("%j -> line %i, column %i: %s", (text, line, column, message) => {
    expect(locateJsonError(text)).toEqual({ line, column, message });
  });

  it("finds nothing in valid JSON", () => {
    expect(locateJsonError('{"a": [1, -2.5e+3, true, false, null, "x\\n\\u00e9"], "b": {}}')).toBeUndefined();
  });

  it("property: agrees with JSON.parse on what is valid, for any JSON value", () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(locateJsonError(text)).toBeUndefined();
      }),
    );
  });

  it("property: agrees with JSON.parse on arbitrary and damaged text", () => {
    const damaged = fc.tuple(fc.json(), fc.nat(), fc.constantFrom("", ",", "}", "]", '"', "/", "'", "x", " ", "\n", "0")).map(([text, at, insert]) => {
      const i = at % (text.length + 1);
      return text.slice(0, i) + insert + text.slice(i + 1);
    });
    fc.assert(
      fc.property(fc.oneof(fc.string(), damaged), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        expect(locateJsonError(text) === undefined).toBe(valid);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("parseJson", () => {
  it("parses, skipping a byte order mark", () => {
    expect(parseJson('\uFEFF{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
  });

  it("reports the located problem", () => {
    expect(parseJson('{"a": 1,}')).toEqual({
      ok: false,
      problem: { line: 1, column: 8, message: 'trailing comma: JSON allows no "," before "}"' },
    });
  });
});
