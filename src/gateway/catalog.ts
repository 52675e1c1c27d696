/**
 * The board's lists as one server shows them: tools (as `board.listTools()` names them, or the
 * principal's own view), resources, resource templates, prompts, and the reads and completions that
 * go to whichever server owns a resource, a template or a prompt. Resources and templates keep their
 * servers' URIs (a URI names its resource; `ui://` resources of MCP Apps pass through unchanged).
 */
import type { CallHandlers } from "../client/call-handlers.js";
import type { CompleteResult, ResourceTemplate } from "../client/types.js";
import { ErrorCode } from "../jsonrpc/codes.js";
import { ProtocolError } from "../jsonrpc/errors.js";
import { parseQualified } from "../switchboard/namespacing.js";
import type { Switchboard } from "../switchboard/switchboard.js";
import { isObject } from "../util/guards.js";
import type { GatewayNames } from "./names.js";

type Params = Record<string, unknown>;

/** The part of a URI template before its first expression: a URI starting with it may belong to the template. */
const templatePrefix = (template: string) => template.split("{", 1)[0] ?? template;

export class GatewayCatalog {
  /** Template prefixes to their servers, from the latest templates listing; longest prefix first. */
  private templateOwners: Array<[prefix: string, server: string]> = [];
  /** Resource URIs to their servers, from the resource listings. */
  private readonly resourceOwners = new Map<string, string>();

  constructor(
    private readonly board: Switchboard,
    private readonly names: GatewayNames,
  ) {}

  async tools(principal: string | undefined): Promise<Params> {
    const tools = await (principal === undefined ? this.board.listTools() : this.board.forPrincipal(principal).listTools());
    return { tools: tools.map((tool) => ({ ...tool, name: this.names.outward(tool.name) })) };
  }

  async resources(): Promise<Params> {
    const resources = (await this.board.listResources()).map(({ server, ...resource }) => {
      this.resourceOwners.set(resource.uri, server);
      return resource;
    });
    return { resources };
  }

  async templates(): Promise<Params> {
    const lists = await Promise.all(
      this.board.serverNames.map(async (server) => {
        const client = this.board.client(server);
        if (!client?.serverCapabilities?.resources) return [];
        try {
          return (await client.listResourceTemplates()).map((template): [ResourceTemplate, string] => [template, server]);
        } catch (error) {
          this.board.emit("error", { server, error: error as Error });
          return [];
        }
      }),
    );
    const flat = lists.flat();
    this.templateOwners = flat.map(([t, server]): [string, string] => [templatePrefix(t.uriTemplate), server]).sort((a, b) => b[0].length - a[0].length);
    return { resourceTemplates: flat.map(([template]) => template) };
  }

  /** `handlers`: those of the client whose read it is, for the server requests the read causes. */
  async read(params: Params, signal: AbortSignal, handlers?: CallHandlers): Promise<Params> {
    const uri = params.uri;
    if (typeof uri !== "string") throw new ProtocolError("resources/read needs params.uri (a string)", ErrorCode.InvalidParams);
    return await this.board.readResource(uri, { signal, server: await this.owner(uri), handlers });
  }

  /** The server that owns `uri`; a URI not seen yet is looked for in fresh listings first. */
  async owner(uri: string): Promise<string> {
    let server = this.ownerOf(uri);
    if (server === undefined) {
      await Promise.all([this.resources(), this.templates()]);
      server = this.ownerOf(uri);
    }
    if (server === undefined) throw new ProtocolError(`Resource not found: ${uri}`, ErrorCode.ResourceNotFound, { uri });
    return server;
  }

  private ownerOf(uri: string): string | undefined {
    return this.resourceOwners.get(uri) ?? this.templateOwners.find(([prefix]) => prefix !== "" && uri.startsWith(prefix))?.[1];
  }

  async prompts(): Promise<Params> {
    return { prompts: (await this.board.listPrompts()).map((prompt) => ({ ...prompt, name: this.names.outward(prompt.name) })) };
  }

  async prompt(params: Params, signal: AbortSignal, handlers?: CallHandlers): Promise<Params> {
    if (typeof params.name !== "string") throw new ProtocolError("prompts/get needs params.name (a string)", ErrorCode.InvalidParams);
    const args = isObject(params.arguments) ? (params.arguments as Record<string, string>) : undefined;
    return await this.board.getPrompt(this.names.inward(params.name), args, { signal, handlers });
  }

  async complete(params: Params, signal: AbortSignal, handlers?: CallHandlers): Promise<Params> {
    const ref = params.ref;
    const argument = params.argument as { name: string; value: string };
    if (!isObject(ref) || !isObject(argument)) throw new ProtocolError("completion/complete needs params.ref and params.argument", ErrorCode.InvalidParams);
    const context = isObject(params.context) ? (params.context as { arguments?: Record<string, string> }) : undefined;
    let server: string | undefined;
    let upstreamRef = ref;
    if (ref.type === "ref/prompt" && typeof ref.name === "string") {
      const parsed = parseQualified(this.names.inward(ref.name), this.board.separator, new Set(this.board.serverNames));
      server = parsed?.server;
      if (parsed) upstreamRef = { ...ref, name: parsed.tool };
    } else if (ref.type === "ref/resource" && typeof ref.uri === "string") {
      if (this.templateOwners.length === 0) await this.templates();
      const uri = ref.uri;
      server = this.templateOwners.find(([prefix]) => uri.startsWith(prefix))?.[1];
    }
    const client = server === undefined ? undefined : this.board.client(server);
    // The gateway declares completions for all its servers: one that has none suggests nothing.
    if (client?.serverCapabilities?.completions === undefined) return { completion: { values: [], hasMore: false } } satisfies CompleteResult;
    return await client.complete(upstreamRef as never, argument, context, { signal, handlers });
  }
}
