/**
 * The resources and prompts of the demo server (src/cli/demo-server.ts), so `resources`, `read`,
 * `prompts` and `prompt` have something to show: a text resource, a binary one, a template, and two
 * prompts (one with arguments, one embedding a resource). Answers are JSON-RPC results or errors.
 */
type Answer = { result: unknown } | { error: { code: number; message: string } };

const README = "# mcp-switchboard demo\n\nA small MCP server over stdio with tools, resources and prompts.\n";
// A 1x1 transparent PNG: binary contents for `read` to summarise.
const LOGO = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

const RESOURCES = [
  { uri: "demo://readme", name: "readme", title: "README", description: "What this server is.", mimeType: "text/markdown" },
  { uri: "demo://logo.png", name: "logo", description: "A 1x1 image.", mimeType: "image/png" },
];
const TEMPLATES = [{ uriTemplate: "demo://greeting/{name}", name: "greeting", description: "A greeting for anyone.", mimeType: "text/plain" }];
const PROMPTS = [
  {
    name: "greet",
    description: "Asks for a greeting.",
    arguments: [
      { name: "name", description: "Who to greet", required: true },
      { name: "style", description: "How (default: friendly)" },
    ],
  },
  { name: "explain_readme", description: "Asks to explain the README, which it embeds." },
];

const notFound = (uri: string): Answer => ({ error: { code: -32002, message: `Resource not found: ${uri}` } });
const invalid = (message: string): Answer => ({ error: { code: -32602, message } });

export function catalogAnswer(method: string | undefined, params: Record<string, unknown>): Answer | undefined {
  switch (method) {
    case "resources/list":
      return { result: { resources: RESOURCES } };
    case "resources/templates/list":
      return { result: { resourceTemplates: TEMPLATES } };
    case "resources/read":
      return read(String(params.uri));
    case "prompts/list":
      return { result: { prompts: PROMPTS } };
    case "prompts/get":
      return prompt(String(params.name), (params.arguments as Record<string, string> | undefined) ?? {});
    default:
      return undefined;
  }
}

function read(uri: string): Answer {
  if (uri === "demo://readme") return { result: { contents: [{ uri, mimeType: "text/markdown", text: README }] } };
  if (uri === "demo://logo.png") return { result: { contents: [{ uri, mimeType: "image/png", blob: LOGO }] } };
  const greeting = /^demo:\/\/greeting\/([^/?#]+)$/.exec(uri)?.[1];
  if (greeting !== undefined) return { result: { contents: [{ uri, mimeType: "text/plain", text: `Hello, ${decodeURIComponent(greeting)}!` }] } };
  return notFound(uri);
}

function prompt(name: string, args: Record<string, string>): Answer {
  const user = (text: string) => ({ role: "user", content: { type: "text", text } });
  switch (name) {
    case "greet":
      if (args.name === undefined) return invalid(`Missing required argument "name" for prompt greet`);
      return { result: { description: "A greeting", messages: [user(`Greet ${args.name} in a ${args.style ?? "friendly"} way.`)] } };
    case "explain_readme":
      return {
        result: {
          messages: [
            { role: "user", content: { type: "resource", resource: { uri: "demo://readme", mimeType: "text/markdown", text: README } } },
            user("Explain this README in one sentence."),
          ],
        },
      };
    default:
      return invalid(`Unknown prompt: ${name}`);
  }
}
