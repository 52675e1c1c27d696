/**
 * Optional checking of a tool result's `structuredContent` against the tool's `outputSchema`
 * (`validateStructuredContent`). Off by default and never on the default path: a validator is compiled
 * once per schema object (so once per tool per tool-list) with ajv, and only calls that asked for
 * checking run it.
 *
 * MCP 2025-11-25 says schemas without `$schema` are JSON Schema 2020-12; servers built on older
 * tooling often say draft-07 explicitly. Each gets the ajv dialect it names.
 */
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { ErrorCode } from "../jsonrpc/codes.js";
import { ProtocolError } from "../jsonrpc/errors.js";
import type { CallToolResult } from "./types.js";

/** `structuredContent` did not match the tool's `outputSchema`, or was missing though one is declared. */
export class StructuredContentError extends ProtocolError {
  readonly tool: string;
  readonly result: CallToolResult;
  constructor(message: string, tool: string, result: CallToolResult, errors: unknown) {
    super(message, ErrorCode.InvalidParams, { tool, errors });
    this.tool = tool;
    this.result = result;
  }
}

type Compiler = { compile(schema: object): ValidateFunction; removeSchema(schema: object): unknown };

export class OutputValidator {
  private modern: Compiler | undefined;
  private draft07: Compiler | undefined;
  private readonly compiled = new WeakMap<object, ValidateFunction>();

  /** Returns `result` when it conforms; throws `StructuredContentError` naming the tool and the path. */
  check(tool: string, schema: object | undefined, result: CallToolResult): CallToolResult {
    if (schema === undefined || result.isError === true) return result;
    const content = result.structuredContent;
    if (content === undefined) {
      throw new StructuredContentError(`Tool ${tool} declares an outputSchema but returned no structuredContent`, tool, result, []);
    }
    const validate = this.validatorFor(tool, schema);
    if (validate(content)) return result;
    const first = validate.errors?.[0];
    const path = first?.instancePath ? first.instancePath : "(root)";
    throw new StructuredContentError(
      `Tool ${tool} returned structuredContent that does not match its outputSchema: at ${path}: ${first?.message ?? "invalid"}`,
      tool,
      result,
      validate.errors ?? [],
    );
  }

  private validatorFor(tool: string, schema: object): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (validate !== undefined) return validate;
    const compiler = this.compilerFor(schema);
    try {
      validate = compiler.compile(schema);
    } catch (error) {
      throw new ProtocolError(
        `Tool ${tool} has an outputSchema that cannot be compiled: ${(error as Error).message}`,
        ErrorCode.InvalidParams,
        { tool },
        { cause: error },
      );
    }
    // ajv keeps every compiled schema (and registers its $id) for good; the validator needs neither. Without
    // this, each refreshed tool list would grow ajv's cache, and a schema with an $id would fail to compile
    // the second time ("already exists").
    compiler.removeSchema(schema);
    this.compiled.set(schema, validate);
    return validate;
  }

  private compilerFor(schema: object): Compiler {
    const dialect = (schema as { $schema?: unknown }).$schema;
    if (typeof dialect === "string" && /draft-0[4-7]/.test(dialect)) {
      return (this.draft07 ??= new Ajv({ strict: false, validateSchema: false }));
    }
    return (this.modern ??= new Ajv2020({ strict: false }));
  }
}
