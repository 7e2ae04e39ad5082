import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { circles, folderEdges, importGraph, packageImports, reaches, tsFiles } from "./imports";

/**
 * The import rules docs/architecture.md draws, checked against the sources so that the picture cannot
 * drift from the code.
 */
const PRODUCTION = ["client", "core", "engine-conventions", "dynamic", "plugin", "sdk", "runner", "release", "emulator"];
const graph = importGraph(PRODUCTION, ["index.ts"]);
const FRONTS = ["dynamic/", "plugin/", "sdk/", "runner/", "release/", "index"];

describe("the import rules of docs/architecture.md", () => {
  it("reads the whole project: every production folder has modules, and imports between them are found", () => {
    for (const folder of PRODUCTION)
      expect(
        [...graph.keys()].some((m) => m.startsWith(`${folder}/`)),
        folder,
      ).toBe(true);
    expect(graph.get("plugin/resource")).toContain("core/controller");
    expect(graph.get("core/controller")).toContain("core/context");
  });

  it("imports between folders are exactly those docs/architecture.md's table allows", () => {
    const table = readFileSync(join(__dirname, "../../docs/architecture.md"), "utf8");
    const allowed = new Set<string>();
    for (const row of table.matchAll(/^\| `([\w.-]+?)\/?` +\|[^|]*\| ([^|]*?) *\|$/gm)) {
      for (const to of row[2]!.split(",").map((t) => t.trim())) if (/^[a-z-]+$/.test(to)) allowed.add(`${row[1]!.replace(/\.ts$/, "")} -> ${to}`);
    }
    expect(allowed.size).toBeGreaterThan(5);
    expect([...folderEdges(graph)].sort()).toEqual([...allowed].sort());
  });

  it("has no import circles, type imports included", () => {
    expect(circles(graph)).toEqual([]);
  });

  it("finds a circle when there is one", () => {
    const looped = new Map([
      ["a", new Set(["b"])],
      ["b", new Set(["c"])],
      ["c", new Set(["a"])],
    ]);
    expect(circles(looped)).toEqual([["a", "b", "c"]]);
  });

  it("the core (core/) imports no front, and the client imports nothing above it", () => {
    for (const front of [...FRONTS, "engine-conventions/"]) expect(reaches(graph, "core/", front), front).toEqual([]);
    for (const above of ["core/", ...FRONTS]) expect(reaches(graph, "client/", above), above).toEqual([]);
  });

  it("the core knows no engine: it imports neither @pulumi/pulumi (nor its gRPC or protobuf) nor the engine's conventions", () => {
    const packages = packageImports(["core"]);
    expect(packages.size).toBe(tsFiles(join(__dirname, "../../core")).length);
    const engineSide = [...packages].flatMap(([m, p]) => [...p].filter((name) => /^@pulumi\/|^@grpc\/|^google-protobuf$/.test(name)).map((name) => `${m} -> ${name}`));
    expect(engineSide).toEqual([]);
    expect(reaches(graph, "core/", "engine-conventions/")).toEqual([]);
    // The check sees package imports where there are some.
    expect(packageImports(["plugin"]).get("plugin/provider")).toContain("@pulumi/pulumi");
  });

  it("the emulator is imported by no production code, and imports none", () => {
    for (const folder of PRODUCTION.filter((f) => f !== "emulator")) expect(reaches(graph, `${folder}/`, "emulator/"), folder).toEqual([]);
    expect(reaches(graph, "index", "emulator/")).toEqual([]);
    for (const folder of PRODUCTION.filter((f) => f !== "emulator")) expect(reaches(graph, "emulator/", `${folder}/`), folder).toEqual([]);
  });

  it("the two fronts of BrowserSession know only the core: the plugin reaches neither the dynamic provider, the SDK nor the runner, and the dynamic provider not the plugin", () => {
    for (const other of ["dynamic/", "runner/", "sdk/"]) expect(reaches(graph, "plugin/", other), other).toEqual([]);
    for (const other of ["plugin/", "runner/", "sdk/"]) expect(reaches(graph, "dynamic/", other), other).toEqual([]);
  });
});
