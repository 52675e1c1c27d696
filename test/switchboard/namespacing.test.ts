import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  applyToolFilter,
  isToolExposed,
  matchesToolPattern,
  parseQualified,
  qualify,
  serverNameProblem,
  unmatchedFilterNames,
} from "../../src/switchboard/namespacing.js";

describe("qualify / parseQualified", () => {
  const known = new Set(["math", "github", "files"]);

  it("joins with the separator, '__' by default", () => {
    expect(qualify("math", "add")).toBe("math__add");
    expect(qualify("math", "add", ".")).toBe("math.add");
  });

  it("splits at the first separator that follows a known server", () => {
    expect(parseQualified("math__add", "__", known)).toEqual({ server: "math", tool: "add" });
    expect(parseQualified("math__add__twice", "__", known)).toEqual({ server: "math", tool: "add__twice" });
    expect(parseQualified("math___private", "__", known)).toEqual({ server: "math", tool: "_private" });
    expect(parseQualified("github.search", ".", known)).toEqual({ server: "github", tool: "search" });
  });

  it("returns undefined for unknown servers, missing separators and empty tool names", () => {
    expect(parseQualified("nope__add", "__", known)).toBeUndefined();
    expect(parseQualified("mathadd", "__", known)).toBeUndefined();
    expect(parseQualified("math__", "__", known)).toBeUndefined();
    expect(parseQualified("", "__", known)).toBeUndefined();
    expect(parseQualified("math__add", "", known)).toBeUndefined();
  });

  it("accepts a Map of servers as the known set", () => {
    expect(parseQualified("files__read", "__", new Map([["files", 1]]))).toEqual({ server: "files", tool: "read" });
  });

  it("finds a server whose name was not checked by serverNameProblem", () => {
    expect(parseQualified("a_b__c__d", "__", new Set(["a_b__c"]))).toEqual({ server: "a_b__c", tool: "d" });
  });

  it("property: with valid server names, every qualified name is unique and parses back", () => {
    const separators = fc.constantFrom("__", "_", ".", "-", "::", "/");
    const names = fc.string({ unit: fc.constantFrom("a", "b", "_", ".", "-", ":", "/"), minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(separators, fc.uniqueArray(names, { maxLength: 6 }), fc.uniqueArray(names, { maxLength: 6 }), (sep, servers, tools) => {
        const valid = servers.filter((server) => serverNameProblem(server, sep) === undefined);
        const knownServers = new Set(valid);
        const qualified = new Map<string, [string, string]>();
        for (const server of valid) {
          for (const tool of tools) {
            const name = qualify(server, tool, sep);
            expect(qualified.has(name)).toBe(false); // collisions impossible
            qualified.set(name, [server, tool]);
            expect(parseQualified(name, sep, knownServers)).toEqual({ server, tool });
          }
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe("serverNameProblem", () => {
  it.each([
    ["math", "__", undefined],
    ["my_server", "__", undefined],
    ["my-server", "-", 'the name contains the separator "-", which would make qualified tool names ambiguous; rename the server or choose another "separator"'],
    ["", "__", "server names cannot be empty"],
    ["a__b", "__", 'the name contains the separator "__", which would make qualified tool names ambiguous; rename the server or choose another "separator"'],
    [
      "a_",
      "__",
      'the name ends with "_", which runs into the separator "__" ("a___tool" would split as "a" + "_tool"); rename the server or choose another "separator"',
    ],
    [
      "xb",
      "bb",
      'the name ends with "b", which runs into the separator "bb" ("xbbbtool" would split as "x" + "btool"); rename the server or choose another "separator"',
    ],
    ["ab", "bc", undefined], // "abbc": the first "bc" starts right after the name
    ["_a", "__", undefined],
  ])("%j with separator %j", (name, sep, problem) => {
    expect(serverNameProblem(name, sep)).toBe(problem);
  });
});

describe("matchesToolPattern", () => {
  it.each([
    ["add", "add", true],
    ["add", "adds", false],
    ["read_*", "read_file", true],
    ["read_*", "read_", true],
    ["read_*", "write_file", false],
    ["*_file", "read_file", true],
    ["*", "anything", true],
    ["a*b*c", "aXbYc", true],
    ["a*b*c", "abc", true],
    ["a*b*c", "acb", false],
    ["a*a", "a", false],
    ["a*a", "aa", true],
    ["x.y", "xzy", false], // nothing but * is special
    ["get_?", "get_x", false],
  ])("%j matches %j: %s", (pattern, name, expected) => {
    expect(matchesToolPattern(pattern, name)).toBe(expected);
  });
});

describe("applyToolFilter", () => {
  const tools = [
    { name: "read_file", description: "Reads" },
    { name: "write_file", description: "Writes" },
    { name: "delete_file" },
    { name: "search", description: "Finds" },
  ];
  const names = (list: Array<{ name: string }>) => list.map((tool) => tool.name);

  it("keeps everything with an empty filter, returning the same objects", () => {
    const out = applyToolFilter(tools, {});
    expect(out).toEqual(tools);
    expect(out[0]).toBe(tools[0]);
  });

  it("only, then except", () => {
    expect(names(applyToolFilter(tools, { only: ["*_file"] }))).toEqual(["read_file", "write_file", "delete_file"]);
    expect(names(applyToolFilter(tools, { except: ["delete_*", "search"] }))).toEqual(["read_file", "write_file"]);
    expect(names(applyToolFilter(tools, { only: ["*_file"], except: ["delete_file"] }))).toEqual(["read_file", "write_file"]);
    expect(applyToolFilter(tools, { only: [] })).toEqual([]);
  });

  it("a predicate has the last say", () => {
    const filter = { except: ["search"], filter: (tool: { name: string }) => !tool.name.startsWith("delete") };
    expect(names(applyToolFilter(tools, filter))).toEqual(["read_file", "write_file"]);
    expect(isToolExposed({ name: "search" }, { filter: () => true, except: ["search"] })).toBe(false);
  });

  it("overrides descriptions on copies, never on the input", () => {
    const out = applyToolFilter(tools, { descriptions: { read_file: "Read one file.", delete_file: "Gone." } });
    expect(out[0]).toEqual({ name: "read_file", description: "Read one file." });
    expect(out[2]).toEqual({ name: "delete_file", description: "Gone." });
    expect(out[1]).toBe(tools[1]);
    expect(tools[0].description).toBe("Reads");
  });

  it("does not take descriptions from the prototype", () => {
    const out = applyToolFilter([{ name: "toString", description: "own" }], { descriptions: {} });
    expect(out[0].description).toBe("own");
  });

  it("keeps other tool fields", () => {
    const tool = { name: "t", description: "d", inputSchema: { type: "object" as const }, annotations: { readOnlyHint: true } };
    expect(applyToolFilter([tool], { descriptions: { t: "new" } })).toEqual([{ ...tool, description: "new" }]);
  });
});

describe("unmatchedFilterNames", () => {
  it("lists patterns and description names that match no tool", () => {
    const tools = [{ name: "read_file" }, { name: "search" }];
    expect(unmatchedFilterNames(tools, { only: ["read_*", "raed_file"], except: ["gone"], descriptions: { search: "x", serch: "y" } })).toEqual([
      "raed_file",
      "gone",
      "serch",
    ]);
    expect(unmatchedFilterNames(tools, {})).toEqual([]);
  });
});
