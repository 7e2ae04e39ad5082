import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { importGraph, packageImports, reaches, tsFiles } from "./imports";
import { BROWSER_SESSION } from "../../plugin/identity";
import { servedSchema } from "../../plugin/packageSchema";
import { CALLS } from "../../plugin/rpc";

/**
 * The claims docs/architecture.md makes of the code ("X imports only Y", "all of Z is in W"), each checked
 * against the sources under the name the document gives it: a claim the document makes without a check
 * here, or a check of a claim it no longer makes, fails the first test.
 */
const ROOT = resolve(__dirname, "../..");
const PRODUCTION = ["client", "core", "engine-conventions", "dynamic", "plugin", "sdk", "runner", "release", "emulator"];
const graph = importGraph(PRODUCTION, ["index.ts"]);

/** Every production module's source, comments left out, by its path without `.ts`. */
const sources = new Map(
  [...PRODUCTION.flatMap((f) => tsFiles(join(ROOT, f))), join(ROOT, "index.ts")].map((file) => [
    relative(ROOT, file).replace(/\\/g, "/").replace(/\.ts$/, ""),
    readFileSync(file, "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/^\s*\/\/.*$/gm, "")
      .replace(/\s\/\/ .*$/gm, ""),
  ]),
);

/** The modules whose source matches `pattern`. */
const matching = (pattern: RegExp, under = "") =>
  [...sources]
    .filter(([m, text]) => m.startsWith(under) && pattern.test(text))
    .map(([m]) => m)
    .sort();

const CLAIMS: Record<string, () => void> = {
  "core-knows-no-engine": () => {
    const engineSide = [...packageImports(["core"])].flatMap(([m, p]) => [...p].filter((name) => /^@pulumi\/|^@grpc\/|^google-protobuf$/.test(name)).map((name) => `${m} -> ${name}`));
    expect(engineSide).toEqual([]);
    for (const above of ["engine-conventions/", "dynamic/", "plugin/", "sdk/", "runner/", "release/", "index"]) expect(reaches(graph, "core/", above), above).toEqual([]);
    expect(matching(/["'`]__\w/, "core/"), "a __ field").toEqual([]);
    expect(matching(/urn:pulumi|"::"/, "core/"), "a URN taken apart").toEqual([]);
    expect(matching(/process\.argv/, "core/"), "the process's arguments").toEqual([]);
  },
  "reports-through-context": () => {
    expect(matching(/process\.stderr|console\./, "core/")).toEqual(["core/context"]);
    expect(matching(/^let |^var /m, "core/")).toEqual([]);
    expect(matching(/^let |^var /m, "engine-conventions/")).toEqual([]);
  },
  "sdk-takes-wire-fields-only": () => {
    const valueImports: string[] = [];
    for (const [m, text] of sources) {
      if (!m.startsWith("sdk/")) continue;
      for (const i of text.matchAll(/^import\s+(type\s+)?[^;]*?from\s+["'](\.\.\/dynamic[^"']*)["']/gm)) if (!i[1]) valueImports.push(`${m} -> ${i[2]}`);
      // A require or dynamic import of the provider would load it outside the stored provider.
      expect(/require\(\s*["']\.\.\/dynamic|import\(\s*["']\.\.\/dynamic/.test(text), m).toBe(false);
    }
    expect(
      valueImports.every((i) => i.endsWith("../dynamic/wireFields")),
      valueImports.join(", "),
    ).toBe(true);
    expect(valueImports.length).toBeGreaterThan(0);
    expect(reaches(graph, "sdk/", "dynamic/").length).toBeGreaterThan(valueImports.length - 1);
  },
  "sdk-internals-in-their-modules": () => {
    // The marks of a reach: a module loaded as the SDK resolves it, its protocol modules, its server's
    // registration, its scripts' paths, the members of its classes outside their documented interface.
    const reach = /sdkRequire\(|["']\.\/proto\/|@pulumi\/pulumi\/proto|\.addService\s*=|cmd\[?[\\/]|cmd\/|run-plugin|dynamic-provider|\.isKnown\b|createRequire\(/;
    expect(matching(reach)).toEqual(["engine-conventions/liveness", "engine-conventions/pulumiSdk", "engine-conventions/sdkInternals", "plugin/provider", "release/bundledSdk"]);
  },
  "conventions-stated-once": () => {
    expect(matching(/"::"|urn:pulumi/)).toEqual(["engine-conventions/wire"]);
    expect(matching(/startsWith\(\s*["']__["']\s*\)/)).toEqual(["engine-conventions/wire"]);
    expect(matching(/pulumi-nodejs:dynamic/)).toEqual(["engine-conventions/wire"]);
    expect(matching(/dynamic-provider|run-plugin/)).toEqual(["engine-conventions/liveness"]);
  },
  "routing-once": () => {
    // The calls: listed in rpc.ts's table alone (server.ts and handlers.ts take theirs from it); no module
    // holds a list of call names of its own, as server.ts did.
    const name = `["'](?:${Object.keys(CALLS).join("|")})["']`;
    expect(matching(new RegExp(`\\[\\s*${name}\\s*,\\s*${name}`), "plugin/")).toEqual([]);
    expect(graph.get("plugin/server")).toContain("plugin/rpc");
    expect(graph.get("plugin/handlers")).toContain("plugin/rpc");
    // The types: BrowserSession is the served schema's one native resource, and the handlers route it by its token.
    const native = Object.entries(servedSchema().resources)
      .filter(([, r]) => !r.isComponent)
      .map(([t]) => t);
    expect(native).toEqual([BROWSER_SESSION]);
    expect(graph.get("plugin/handlers")).toContain("plugin/identity");
    expect(matching(/BROWSER_SESSION/, "plugin/")).toEqual(["plugin/handlers", "plugin/identity", "plugin/packageSchema", "plugin/reviewSessions"]);
  },
  "bundle-replaces-pulumiSdk": () => {
    const bundle = sources.get("release/bundle")!;
    const replaced = /path\.join\(root, ((?:"[\w-]+", )*"[\w-]+")\) \? \{ path: path\.join\(root, "release", "bundledSdk\.ts"\)/.exec(bundle);
    expect(replaced, "release/bundle.ts names the module it replaces").not.toBeNull();
    const target = replaced![1]!
      .split(", ")
      .map((p) => JSON.parse(p) as string)
      .join("/");
    expect(target).toBe("engine-conventions/pulumiSdk");
    for (const m of [target, "release/bundledSdk"]) expect(sources.get(m), m).toMatch(/export function sdkRequire\(id: string\): unknown/);
  },
};

describe("docs/architecture.md's claims about the code", () => {
  it("names each claim it makes once, and each has a check here", () => {
    const doc = readFileSync(join(ROOT, "docs", "architecture.md"), "utf8");
    const section = doc.slice(doc.indexOf("## What the tests hold this document to"));
    const named = [...section.matchAll(/^- \[([\w-]+)\]/gm)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(3);
    expect([...named].sort()).toEqual(Object.keys(CLAIMS).sort());
  });

  it.each(Object.keys(CLAIMS))("%s", (name) => CLAIMS[name]!());
});
