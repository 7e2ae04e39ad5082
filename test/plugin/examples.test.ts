import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type PackageSchema, type PropertySpec, SCHEMA_FILE, withNativeSchema } from "../../plugin/packageSchema";
import { run } from "../../release/run";
import { USER_PAGES, codeBlocks, read } from "../docs/markdown";

/**
 * The YAML and Python examples, and the YAML test program of ReviewSessions, checked against the schema
 * the plugin serves (the components' part and the native part): every property they set exists with a
 * value of its type, every required input is set, every output they read exists, and every function they
 * invoke is served with the field they take from it. All of them also run under the engine: the YAML ones
 * with the plain CLI and the YAML language host in test/e2e/yaml-cli.test.ts, the Python one in
 * test/e2e/component.test.ts.
 */
const root = path.resolve(__dirname, "..", "..");
const REVIEW_SESSIONS = "remote-browser:index:ReviewSessions";
const BROWSER_SESSION = "remote-browser:index:BrowserSession";
// js-yaml comes with @pulumi/pulumi.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- js-yaml has no types here (it comes with @pulumi/pulumi, without @types)
const yaml: { load(text: string): unknown } = require("js-yaml");

let schema: PackageSchema;
beforeAll(() => {
  schema = withNativeSchema(JSON.parse(fs.readFileSync(path.join(root, SCHEMA_FILE), "utf8")));
});

/** What a value written in a program is, as far as its text tells. */
type Value = { kind: "string" | "number" | "boolean"; value?: unknown } | { kind: "list"; items: Value[] } | { kind: "enumMember"; enumType: string; member: string } | { kind: "expression" }; // computed when the program runs (config, interpolation): its type is not checked

/** Problems of one property value against its spec ("" when it fits). */
function mismatch(spec: PropertySpec, v: Value, where: string): string[] {
  if (v.kind === "expression") return [];
  if (spec.$ref) {
    const token = spec.$ref.replace("#/types/", "");
    const type = schema.types[token];
    if (!type?.enum) return [`${where}: ${spec.$ref} is not an enum of the schema`];
    if (v.kind === "enumMember") {
      return v.enumType === token.split(":")[2] && type.enum.some((e) => e.name.toUpperCase() === v.member) ? [] : [`${where}: ${v.enumType}.${v.member} is not a member of ${token}`];
    }
    return v.kind === "string" && type.enum.some((e) => e.value === v.value) ? [] : [`${where}: ${JSON.stringify(v)} is not one of ${token}`];
  }
  if (spec.type === "array") {
    if (v.kind !== "list") return [`${where}: expected a list, got ${v.kind}`];
    return v.items.flatMap((item, i) => mismatch(spec.items!, item, `${where}[${i}]`));
  }
  return v.kind === spec.type ? [] : [`${where}: expected ${spec.type}, got ${v.kind}`];
}

/** The problems of a use of the resource `type`: the inputs it sets, and the outputs it reads. */
function problemsOf(inputs: Record<string, Value>, outputsRead: string[], type = REVIEW_SESSIONS): string[] {
  const resource = schema.resources[type];
  if (!resource) return [`${type} is not in the schema`];
  const problems: string[] = [];
  for (const [name, v] of Object.entries(inputs)) {
    const spec = resource.inputProperties[name];
    if (!spec) problems.push(`input ${name} is not in the schema`);
    else problems.push(...mismatch(spec, v, name));
  }
  for (const name of resource.requiredInputs) if (!(name in inputs)) problems.push(`required input ${name} is not set`);
  for (const name of outputsRead) if (!resource.properties[name]) problems.push(`output ${name} is not in the schema`);
  return problems;
}

function yamlValue(v: unknown): Value {
  if (typeof v === "string") return /\$\{/.test(v) ? { kind: "expression" } : { kind: "string", value: v };
  if (typeof v === "number" || typeof v === "boolean") return { kind: typeof v as "number" | "boolean", value: v };
  if (Array.isArray(v)) return { kind: "list", items: v.map(yamlValue) };
  return { kind: "expression" }; // fn:: calls and the like
}

const camel = (snake: string) => snake.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

interface YamlProgram {
  runtime: string;
  config?: Record<string, unknown>;
  variables?: Record<string, unknown>;
  resources: Record<string, { type: string; properties?: Record<string, unknown> }>;
  outputs?: Record<string, unknown>;
}

const loadProgram = (dir: string) => yaml.load(fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8")) as YamlProgram;

/** The problems of every use of `type` in a YAML program (the short form `remote-browser:<Type>` included). */
function yamlUses(project: YamlProgram, type: string): { count: number; problems: string[] } {
  const uses = Object.entries(project.resources).filter(([, r]) => [type, type.replace(":index:", ":")].includes(r.type));
  const text = JSON.stringify(project);
  const problems = uses.flatMap(([name, r]) => {
    const inputs = Object.fromEntries(Object.entries(r.properties ?? {}).map(([k, v]) => [k, yamlValue(v)]));
    // Outputs read anywhere in the program: ${name.output...}
    const read = [...text.matchAll(new RegExp(`\\$\\{${name}\\.([A-Za-z0-9_]+)`, "g"))].map((m) => m[1]!);
    if (read.length === 0) return [`${name}: no output of it is read`];
    return problemsOf(inputs, read, type).map((p) => `${name}: ${p}`);
  });
  return { count: uses.length, problems };
}

/**
 * The YAML program's rules that hold for every YAML program of the repository. `installed`: the program's
 * folder installs the package from npm for its plugin (an example a user copies), or holds nothing beside
 * its Pulumi.yaml (the plugin is installed elsewhere).
 */
function yamlProgramRules(dir: string, installed: boolean) {
  const project = loadProgram(dir);

  it("reads only config it declares", () => {
    const text = JSON.stringify({ resources: project.resources, variables: project.variables });
    for (const [, key] of text.matchAll(/\$\{([A-Za-z0-9_]+)\}/g)) {
      expect([...Object.keys(project.config ?? {}), ...Object.keys(project.variables ?? {}), ...Object.keys(project.resources)]).toContain(key);
    }
  });

  it("declares its config only with keys the YAML language host reads (no warning at every run)", () => {
    // pulumi-yaml 1.32.0's config declaration (ast.ConfigParamDecl) has these fields and warns about any other,
    // such as the `description` the CLI's own project schema allows.
    const known = ["type", "default", "secret", "items", "value"];
    for (const [key, decl] of Object.entries(project.config ?? {})) {
      expect(
        Object.keys(decl as object).filter((k) => !known.includes(k)),
        `config.${key}`,
      ).toEqual([]);
    }
  });

  if (installed) {
    it("installs the package with its plugin, and the @pulumi/pulumi the plugin runs on", () => {
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
      expect(Object.keys(manifest.dependencies).sort()).toEqual(["@pulumi/pulumi", "pulumi-remote-browser"]);
    });
  } else {
    it("holds nothing but its Pulumi.yaml: no package.json, and no plugin path into a node_modules of its own", () => {
      expect(fs.readdirSync(dir)).toEqual(["Pulumi.yaml"]);
      expect((project as { plugins?: unknown }).plugins).toBeUndefined();
    });
  }
  return project;
}

describe("the YAML example (examples/yaml-review)", () => {
  const project = yamlProgramRules(path.join(root, "examples", "yaml-review"), true);

  it("is a YAML program that declares BrowserSession with inputs of the schema's names and types", () => {
    expect(project.runtime).toBe("yaml");
    const { count, problems } = yamlUses(project, BROWSER_SESSION);
    expect(count).toBeGreaterThan(1);
    expect(problems).toEqual([]);
  });

  it("invokes getImages and getUsage, functions the plugin serves, and reads fields they return", () => {
    const invokes = Object.entries(project.variables ?? {}).map(([name, v]) => ({
      name,
      ...(v as { "fn::invoke": { function: string; return?: string } })["fn::invoke"],
    }));
    expect(invokes.map((i) => i.function).sort()).toEqual(["remote-browser:index:getImages", "remote-browser:index:getUsage"]);
    const functions = schema.functions as Record<string, { outputs: { properties: Record<string, unknown> } }>;
    const text = JSON.stringify(project.outputs);
    for (const i of invokes) {
      const fields = Object.keys(functions[i.function]?.outputs.properties ?? {});
      expect(fields.length, `${i.function} is served`).toBeGreaterThan(0);
      if (i.return) expect(fields).toContain(i.return);
      // Fields read of the whole answer: ${name.field}
      for (const [, field] of text.matchAll(new RegExp(`\\$\\{${i.name}\\.([A-Za-z0-9_]+)`, "g"))) {
        expect(i.return, `${i.name} is read by field, so it returns the whole answer`).toBeUndefined();
        expect(fields).toContain(field);
      }
    }
  });
});

describe("the YAML program of ReviewSessions (test/e2e/programs/yaml-review-sessions)", () => {
  const project = yamlProgramRules(path.join(root, "test", "e2e", "programs", "yaml-review-sessions"), false);

  it("is a YAML program that uses ReviewSessions with inputs of the schema's names and types", () => {
    expect(project.runtime).toBe("yaml");
    const { count, problems } = yamlUses(project, REVIEW_SESSIONS);
    expect(count).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });
});

describe("the YAML programs of the README and the user's pages (docs/_index.md and others)", () => {
  const programs = USER_PAGES.flatMap((page) =>
    codeBlocks(read(page))
      .filter((b) => b.lang === "yaml" && /^runtime: yaml$/m.test(b.code))
      .map((b) => ({ where: `${page}:${b.line}`, project: yaml.load(b.code) as YamlProgram })),
  );

  it("there is one on the overview and one in the README", () => {
    expect(programs.map((p) => p.where.split(":")[0])).toEqual(expect.arrayContaining(["README.md", "docs/_index.md"]));
  });

  it.each(programs.map((p) => [p.where, p.project] as const))("%s declares BrowserSession with inputs of the schema's names and types, and reads its outputs", (_where, project) => {
    const { count, problems } = yamlUses(project, BROWSER_SESSION);
    expect(count).toBeGreaterThan(0);
    expect(problems).toEqual([]);
    const functions = schema.functions as Record<string, { outputs: { properties: Record<string, unknown> } }>;
    for (const v of Object.values(project.variables ?? {})) {
      const invoke = (v as { "fn::invoke"?: { function: string; return?: string } })["fn::invoke"];
      if (!invoke) continue;
      const fields = Object.keys(functions[invoke.function]?.outputs.properties ?? {});
      expect(fields.length, `${invoke.function} is served`).toBeGreaterThan(0);
      if (invoke.return) expect(fields).toContain(invoke.return);
    }
  });
});

describe("the schema check itself", () => {
  it("catches a wrong name, a wrong type and a missing required input", () => {
    expect(problemsOf({ browsers: { kind: "string", value: "chrome" }, shareLanguage: { kind: "string", value: "xx" } }, ["shareUrl"])).toEqual([
      "browsers: expected a list, got string",
      'shareLanguage: {"kind":"string","value":"xx"} is not one of remote-browser:index:ShareLanguage',
      "required input url is not set",
      "output shareUrl is not in the schema",
    ]);
    expect(problemsOf({ browsers: { kind: "list", items: [{ kind: "string" }] }, url: { kind: "string" }, urls: { kind: "string" } }, [])).toEqual(["input urls is not in the schema"]);
    expect(problemsOf({ url: { kind: "string" }, readyTimeoutSeconds: { kind: "string" } }, ["shareUrls"], BROWSER_SESSION)).toEqual([
      "readyTimeoutSeconds: expected number, got string",
      "required input browser is not set",
      "output shareUrls is not in the schema",
    ]);
  });
});

/** The example's module parsed by Python itself: the ReviewSessions calls, their keyword arguments, what is read of them. */
const PARSE = `
import ast, json, sys
tree = ast.parse(open(sys.argv[1]).read())
aliases = {a.asname or a.name: a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
def value(n):
    if isinstance(n, ast.Constant) and isinstance(n.value, bool): return {"kind": "boolean", "value": n.value}
    if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)): return {"kind": "number", "value": n.value}
    if isinstance(n, ast.Constant) and isinstance(n.value, str): return {"kind": "string", "value": n.value}
    if isinstance(n, (ast.List, ast.Tuple)): return {"kind": "list", "items": [value(e) for e in n.elts]}
    if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Attribute) and isinstance(n.value.value, ast.Name):
        return {"kind": "enumMember", "module": aliases.get(n.value.value.id), "enumType": n.value.attr, "member": n.attr}
    return {"kind": "expression"}
calls, targets = [], {}
for n in ast.walk(tree):
    if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call):
        f = n.value.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.attr == "ReviewSessions":
            calls.append({"module": aliases.get(f.value.id), "target": n.targets[0].id,
                          "kwargs": {k.arg: value(k.value) for k in n.value.keywords}})
reads = [{"of": n.value.id, "attr": n.attr} for n in ast.walk(tree)
         if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)]
print(json.dumps({"calls": calls, "reads": reads}))
`;

describe("the Python programs (examples/python-review, and ReviewSessions from Python)", () => {
  const dir = path.join(root, "examples", "python-review");

  // The example itself (native BrowserSession, get_images, get_usage) runs in test/e2e/component.test.ts.
  it("calls ReviewSessions of pulumi_remote_browser with keyword arguments of the schema's names and types", async () => {
    let parsed: { calls: Array<{ module: string; target: string; kwargs: Record<string, Value & { module?: string }> }>; reads: Array<{ of: string; attr: string }> };
    try {
      const program = path.join(root, "test", "e2e", "programs", "component-python", "review-sessions", "__main__.py");
      parsed = JSON.parse(await run("python3", ["-c", PARSE, program]));
    } catch (e) {
      throw new Error(`python3 parses the Python example (is python3 installed?): ${(e as Error).message}`, { cause: e });
    }
    expect(parsed.calls.length).toBeGreaterThan(0);
    for (const call of parsed.calls) {
      // The module `pulumi package add` generates for the package remote-browser.
      expect(call.module).toBe("pulumi_remote_browser");
      const inputs = Object.fromEntries(Object.entries(call.kwargs).map(([k, v]) => [camel(k), v]));
      for (const v of Object.values(call.kwargs)) if (v.kind === "enumMember") expect(v.module).toBe("pulumi_remote_browser");
      const read = parsed.reads.filter((r) => r.of === call.target).map((r) => camel(r.attr));
      expect(read.length).toBeGreaterThan(0);
      expect(problemsOf(inputs, read), call.target).toEqual([]);
    }
  });

  it("is a Python project whose npm install brings the plugin", () => {
    const project = yaml.load(fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8")) as { runtime: { name: string } };
    expect(project.runtime.name).toBe("python");
    expect(fs.readFileSync(path.join(dir, "requirements.txt"), "utf8")).toMatch(/^pulumi>=3\./m);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
    expect(Object.keys(manifest.dependencies).sort()).toEqual(["@pulumi/pulumi", "pulumi-remote-browser"]);
  });
});
