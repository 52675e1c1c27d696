/**
 * JSON parsing with a useful error: line, column and what was wrong, the same on every Node version
 * (V8's own messages changed between releases and do not always carry a position).
 *
 * `JSON.parse` does the parsing; only when it fails does `locateJsonError` scan the text to find
 * where and why, with messages for the usual hand-editing slips: trailing commas, comments, single
 * quotes, unquoted property names, a missing comma.
 */

export interface JsonSyntaxProblem {
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units. */
  column: number;
  message: string;
}

export type JsonParseResult = { ok: true; value: unknown } | { ok: false; problem: JsonSyntaxProblem };

export function parseJson(text: string): JsonParseResult {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text; // editors on Windows add a BOM
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch (error) {
    const problem = locateJsonError(body) ?? { line: 1, column: 1, message: error instanceof Error ? error.message : String(error) };
    return { ok: false, problem };
  }
}

const NUMBER = /-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

class Stop {
  constructor(
    readonly offset: number,
    readonly message: string,
  ) {}
}

/** Finds the first syntax error in `text`, or `undefined` when it is valid JSON. */
export function locateJsonError(text: string): JsonSyntaxProblem | undefined {
  try {
    new Scanner(text).document();
    return undefined;
  } catch (stop) {
    if (!(stop instanceof Stop)) throw stop;
    return { ...lineAndColumn(text, stop.offset), message: stop.message };
  }
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** A recursive-descent checker for RFC 8259 JSON; it builds nothing, it only finds the first problem. */
class Scanner {
  #at = 0;
  constructor(readonly text: string) {}

  document(): void {
    this.#space();
    if (this.#at >= this.text.length) throw new Stop(this.#at, "the file is empty; expected a JSON object");
    this.#value();
    this.#space();
    if (this.#at < this.text.length) throw new Stop(this.#at, `unexpected ${this.#found()} after the end of the JSON value`);
  }

  /** What is at the cursor, for "found ...": `}`, `tru`, the end of the file. */
  #found(): string {
    if (this.#at >= this.text.length) return "the end of the file";
    const word = /[A-Za-z_$][\w$]*/y;
    word.lastIndex = this.#at;
    const match = word.exec(this.text);
    return `\`${match ? match[0] : this.text[this.#at]}\``;
  }

  #space(): void {
    for (;;) {
      const c = this.text[this.#at];
      if (c === " " || c === "\t" || c === "\n" || c === "\r") this.#at++;
      else if (c === "/" && (this.text[this.#at + 1] === "/" || this.text[this.#at + 1] === "*")) {
        throw new Stop(this.#at, "comments are not allowed in JSON");
      } else return;
    }
  }

  #value(): void {
    const c = this.text[this.#at];
    if (c === "{") return this.#object();
    if (c === "[") return this.#array();
    if (c === '"') return this.#string();
    if (c === "'") throw new Stop(this.#at, "strings must be in double quotes, not single quotes");
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.#number();
    for (const literal of ["true", "false", "null"]) {
      if (this.text.startsWith(literal, this.#at)) {
        this.#at += literal.length;
        return;
      }
    }
    if (c === undefined) throw new Stop(this.#at, "unexpected end of file; expected a value");
    throw new Stop(this.#at, `expected a value, found ${this.#found()}`);
  }

  #object(): void {
    const open = this.#at++;
    this.#space();
    if (this.text[this.#at] === "}") {
      this.#at++;
      return;
    }
    for (;;) {
      const c = this.text[this.#at];
      if (c === undefined) throw this.#unclosed("object", "}", open);
      if (c === "'") throw new Stop(this.#at, "property names must be in double quotes, not single quotes");
      if (c !== '"') {
        const word = /[A-Za-z_$][\w$-]*/y;
        word.lastIndex = this.#at;
        const name = word.exec(this.text)?.[0];
        if (name !== undefined) throw new Stop(this.#at, `property names must be in double quotes: write "${name}"`);
        throw new Stop(this.#at, `expected a property name in double quotes, found ${this.#found()}`);
      }
      this.#string();
      this.#space();
      if (this.text[this.#at] !== ":") {
        if (this.#at >= this.text.length) throw this.#unclosed("object", "}", open);
        throw new Stop(this.#at, `expected ":" after the property name, found ${this.#found()}`);
      }
      this.#at++;
      this.#space();
      if (this.#at >= this.text.length) throw this.#unclosed("object", "}", open);
      this.#value();
      this.#space();
      const next = this.text[this.#at];
      if (next === "}") {
        this.#at++;
        return;
      }
      if (next === undefined) throw this.#unclosed("object", "}", open);
      if (next === '"') throw new Stop(this.#at, 'missing "," between properties');
      if (next !== ",") throw new Stop(this.#at, `expected "," or "}" after a property value, found ${this.#found()}`);
      const comma = this.#at++;
      this.#space();
      if (this.text[this.#at] === "}") throw new Stop(comma, 'trailing comma: JSON allows no "," before "}"');
    }
  }

  #array(): void {
    const open = this.#at++;
    this.#space();
    if (this.text[this.#at] === "]") {
      this.#at++;
      return;
    }
    for (;;) {
      if (this.#at >= this.text.length) throw this.#unclosed("array", "]", open);
      this.#value();
      this.#space();
      const next = this.text[this.#at];
      if (next === "]") {
        this.#at++;
        return;
      }
      if (next === undefined) throw this.#unclosed("array", "]", open);
      if (next === '"') throw new Stop(this.#at, 'missing "," between array elements');
      if (next !== ",") throw new Stop(this.#at, `expected "," or "]" after an array element, found ${this.#found()}`);
      const comma = this.#at++;
      this.#space();
      if (this.text[this.#at] === "]") throw new Stop(comma, 'trailing comma: JSON allows no "," before "]"');
    }
  }

  #unclosed(kind: string, closer: string, open: number): Stop {
    const { line, column } = lineAndColumn(this.text, open);
    return new Stop(this.#at, `unexpected end of file; the ${kind} opened at line ${line}, column ${column} needs a closing "${closer}"`);
  }

  #string(): void {
    const open = this.#at++;
    for (;;) {
      const c = this.text[this.#at];
      if (c === undefined || c === "\n") {
        throw new Stop(open, 'unterminated string (a string must end with " on the same line)');
      }
      if (c === '"') {
        this.#at++;
        return;
      }
      if (c === "\\") {
        const escape = this.text[this.#at + 1];
        if (escape === "u") {
          if (!/^[0-9A-Fa-f]{4}$/.test(this.text.slice(this.#at + 2, this.#at + 6))) {
            throw new Stop(this.#at, 'invalid escape: "\\u" needs four hex digits');
          }
          this.#at += 6;
          continue;
        }
        if (escape === undefined || !'"\\/bfnrt'.includes(escape)) {
          throw new Stop(this.#at, `invalid escape "\\${escape ?? ""}" in a string (write "\\\\" for a backslash)`);
        }
        this.#at += 2;
        continue;
      }
      if (c.charCodeAt(0) < 0x20) throw new Stop(this.#at, "control characters (such as tabs) must be escaped in strings");
      this.#at++;
    }
  }

  #number(): void {
    NUMBER.lastIndex = this.#at;
    const match = NUMBER.exec(this.text);
    if (!match) throw new Stop(this.#at, `invalid number starting with ${this.#found()}`);
    this.#at += match[0].length;
    if (/^[\d.eE]/.test(this.text[this.#at] ?? ""))
      throw new Stop(this.#at, "invalid number (leading zeros and incomplete fractions or exponents are not allowed)");
  }
}
