import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { RemoteBrowserComponentProvider } from "../../plugin/provider";
import { REGISTRY_SCHEMA_FILE, builtSchemaText, pluginIdentity } from "../../plugin/identity";
import { inSchemaFormat, servedSchema } from "../../plugin/packageSchema";
import type { PackageSchema } from "../../plugin/packageSchema";

/**
 * What the Pulumi Registry reads of a community package: the whole schema at the `schemaFile` path of the
 * repository (committed, written by the build), and the two pages under docs/ with the front matter its
 * package pages have. A listing shows what the committed file says, so it must be what the plugin serves.
 */
const root = path.resolve(__dirname, "..", "..");

/** The YAML front matter of a Markdown page. */
export function frontMatter(text: string): Record<string, unknown> {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(text);
  return m ? (parse(m[1]!) as Record<string, unknown>) : {};
}

describe("the schema a registry listing reads", () => {
  it(`is committed at ${REGISTRY_SCHEMA_FILE}, equal to the schema the plugin serves (run scripts/build.sh to write it)`, async () => {
    const committed = JSON.parse(fs.readFileSync(path.join(root, REGISTRY_SCHEMA_FILE), "utf8")) as PackageSchema;
    const served = JSON.parse(await new RemoteBrowserComponentProvider().getSchema()) as PackageSchema;
    expect(committed).toEqual(served);
  });

  it("says, there and in the components' part, what the native provider is, never the dynamic provider", () => {
    const committed = JSON.parse(fs.readFileSync(path.join(root, REGISTRY_SCHEMA_FILE), "utf8")) as PackageSchema & Record<string, unknown>;
    expect(Object.keys(committed.resources)).toContain("remote-browser:index:BrowserSession");
    expect(committed.description).toMatch(/native provider/i);
    for (const text of [committed.description, JSON.parse(fs.readFileSync(path.join(root, "plugin", "schema.json"), "utf8")).description]) {
      expect(String(text ?? "")).not.toMatch(/dynamic provider/i);
    }
    for (const key of ["displayName", "publisher", "logoUrl", "pluginDownloadURL", "repository", "keywords"]) expect(committed[key], key).toBeTruthy();
  });
});

describe("the schema in Pulumi's schema format", () => {
  /** Every key of the schema, with where it is. */
  const keys = (v: unknown, at = ""): string[] =>
    Array.isArray(v) ? v.flatMap((x, i) => keys(x, `${at}[${i}]`)) : v && typeof v === "object" ? Object.entries(v).flatMap(([k, x]) => [`${at}.${k}`, ...keys(x, `${at}.${k}`)]) : [];

  it("has none of the analyzer's `optional` marks, no empty dependencies and no empty provider properties (test/e2e/registry-schema.test.ts holds it to the CLI)", () => {
    const committed = JSON.parse(fs.readFileSync(path.join(root, REGISTRY_SCHEMA_FILE), "utf8")) as Record<string, unknown>;
    expect(keys(committed).filter((k) => k.endsWith(".optional"))).toEqual([]);
    expect(committed).not.toHaveProperty("dependencies");
    expect(committed.provider).not.toHaveProperty("properties");
  });

  it("inSchemaFormat drops the analyzer's marks and an empty dependencies list, and keeps an input named optional", () => {
    const analyzed = {
      name: "p",
      resources: { "p:index:R": { inputProperties: { a: { type: "string", optional: true }, optional: { type: "boolean" } }, requiredInputs: ["optional"], properties: {}, required: [] } },
      types: {},
      dependencies: [],
    };
    expect(inSchemaFormat(analyzed)).toEqual({
      name: "p",
      resources: { "p:index:R": { inputProperties: { a: { type: "string" }, optional: { type: "boolean" } }, requiredInputs: ["optional"], properties: {}, required: [] } },
      types: {},
    });
    expect(inSchemaFormat({ ...analyzed, dependencies: [{ name: "random" }] }).dependencies).toEqual([{ name: "random" }]);
  });
});

describe("the schema the npm package's plugin serves (GetSchema)", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "prb-built-schema-"));
  const write = (schema: unknown) => fs.writeFileSync(path.join(dir, REGISTRY_SCHEMA_FILE), `${JSON.stringify(schema, null, 2)}\n`);

  it("is the committed file, compact: the schema the derivation gives, as the derivation's own text", () => {
    expect(builtSchemaText()).toBe(JSON.stringify(servedSchema()));
  });

  it("is read from the file only when it was written for the plugin's name and version; otherwise the plugin derives it", () => {
    const identity = pluginIdentity();
    write({ name: identity.name, version: identity.version, resources: {} });
    expect(builtSchemaText(dir, identity)).toBe(JSON.stringify({ name: identity.name, version: identity.version, resources: {} }));
    expect(builtSchemaText(dir, { ...identity, version: "9.9.9" })).toBeUndefined();
    write({ name: "another", version: identity.version });
    expect(builtSchemaText(dir, identity)).toBeUndefined();
    fs.writeFileSync(path.join(dir, REGISTRY_SCHEMA_FILE), "{ not json");
    expect(builtSchemaText(dir, identity)).toBeUndefined();
    fs.rmSync(path.join(dir, REGISTRY_SCHEMA_FILE));
    expect(builtSchemaText(dir, identity)).toBeUndefined();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe("the registry's pages", () => {
  const schema = JSON.parse(fs.readFileSync(path.join(root, REGISTRY_SCHEMA_FILE), "utf8")) as { displayName: string };
  const page = (name: string) => frontMatter(fs.readFileSync(path.join(root, "docs", name), "utf8"));

  it("docs/_index.md: titled by the schema's displayName, with a description and the package layout", () => {
    expect(page("_index.md")).toEqual({ title: schema.displayName, meta_desc: expect.stringMatching(/\S/), layout: "package" });
  });

  it("docs/installation-configuration.md: titled '<displayName> Installation & Configuration', with the package layout", () => {
    expect(page("installation-configuration.md")).toEqual({
      title: `${schema.displayName} Installation & Configuration`,
      meta_desc: expect.stringMatching(/\S/),
      layout: "package",
    });
  });
});
