import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/**
 * The project's import graph, read from its sources: one entry per module (a path relative to the
 * project, without `.ts`), with the project's own modules it imports. `import type` and `export type`
 * count too: a circle of types is still a circle a reader has to walk.
 */
export type ImportGraph = Map<string, Set<string>>;

const ROOT = resolve(__dirname, "../..");
const SPECIFIER = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?["']([^"']+)["']|require\(\s*["']([^"']+)["']\s*\)|import\(\s*["']([^"']+)["']\s*\)/g;

export function importGraph(folders: readonly string[], files: readonly string[] = []): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const [module, { file, specifiers }] of sourcesOf(folders, files)) {
    const deps = new Set<string>();
    for (const spec of specifiers) {
      const target = resolveModule(file, spec);
      if (target) deps.add(target);
    }
    graph.set(module, deps);
  }
  return graph;
}

/**
 * The packages (not the project's own modules) each module imports, by the package's name
 * (`@pulumi/pulumi` for `@pulumi/pulumi/provider`); `node:` built-ins are left out.
 */
export function packageImports(folders: readonly string[], files: readonly string[] = []): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [module, { file, specifiers }] of sourcesOf(folders, files)) {
    const packages = new Set<string>();
    for (const spec of specifiers) {
      if (spec.startsWith(".") || spec.startsWith("node:") || resolveModule(file, spec)) continue;
      const parts = spec.split("/");
      packages.add(spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!);
    }
    out.set(module, packages);
  }
  return out;
}

function sourcesOf(folders: readonly string[], files: readonly string[]): Map<string, { file: string; specifiers: string[] }> {
  const out = new Map<string, { file: string; specifiers: string[] }>();
  const sources = [...folders.flatMap((f) => tsFiles(join(ROOT, f))), ...files.map((f) => join(ROOT, f))];
  for (const file of sources) {
    const text = readFileSync(file, "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/^\s*\/\/.*$/gm, "");
    out.set(moduleName(file), { file, specifiers: [...text.matchAll(SPECIFIER)].map((m) => m[1] ?? m[2] ?? m[3]!) });
  }
  return out;
}

/** Every circle of the graph, each once, as the modules along it. */
export function circles(graph: ImportGraph): string[][] {
  const found = new Map<string, string[]>();
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (m: string) => {
    state.set(m, "open");
    path.push(m);
    for (const d of graph.get(m) ?? []) {
      if (!graph.has(d)) continue;
      if (state.get(d) === "open") {
        const loop = path.slice(path.indexOf(d));
        found.set([...loop].sort().join(" "), loop);
      } else if (!state.has(d)) visit(d);
    }
    path.pop();
    state.set(m, "done");
  };
  for (const m of [...graph.keys()].sort()) if (!state.has(m)) visit(m);
  return [...found.values()];
}

/** Imports from modules under `from` into modules under `to`, as `importer -> imported`. */
export function reaches(graph: ImportGraph, from: string, to: string): string[] {
  const out: string[] = [];
  for (const [m, deps] of graph) if (m.startsWith(from)) for (const d of deps) if (d.startsWith(to)) out.push(`${m} -> ${d}`);
  return out;
}

/** Imports between top-level folders (a root file counts as its name without `.ts`), as `from -> to`. */
export function folderEdges(graph: ImportGraph): Set<string> {
  const edges = new Set<string>();
  for (const [m, deps] of graph) {
    for (const d of deps) {
      const [from, to] = [m.split("/")[0]!, d.split("/")[0]!];
      if (from !== to) edges.add(`${from} -> ${to}`);
    }
  }
  return edges;
}

export function tsFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === "node_modules" ? [] : tsFiles(p);
    return name.endsWith(".ts") && !name.endsWith(".test.ts") && !name.endsWith(".d.ts") ? [p] : [];
  });
}

function resolveModule(file: string, spec: string): string | undefined {
  let base: string;
  if (spec.startsWith(".")) base = resolve(dirname(file), spec);
  else if (spec === "pulumi-remote-browser") base = join(ROOT, "sdk");
  else if (spec.startsWith("pulumi-remote-browser/")) base = join(ROOT, spec.slice("pulumi-remote-browser/".length));
  else return undefined;
  for (const candidate of [`${base}.ts`, join(base, "index.ts")]) if (existsSync(candidate)) return moduleName(candidate);
  return undefined;
}

function moduleName(file: string): string {
  return relative(ROOT, file).replace(/\\/g, "/").replace(/\.ts$/, "");
}
