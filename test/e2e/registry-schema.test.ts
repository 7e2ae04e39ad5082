import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { runStatus } from "../../release/run";
import { engineEnvironment } from "../../runner/environment";
import { REGISTRY_SCHEMA_FILE } from "../../plugin/identity";

/**
 * The schema a Pulumi Registry listing reads (`schema.json`, committed) and the one the plugin of the packed
 * package serves, as the Pulumi CLI itself reads them: `pulumi schema check` binds each as the registry's
 * docs generator does (types, references, every language's rules), and `pulumi package get-schema` prints
 * each as Pulumi's schema format writes it, without any field the format does not define and without the
 * empty ones it leaves out. The committed file must be exactly that text's schema, so nothing it carries is
 * lost or invented between this repository and the registry.
 */
const root = path.resolve(__dirname, "..", "..");
const committedFile = path.join(root, REGISTRY_SCHEMA_FILE);
const { projectDir, pulumiBin } = inject("e2e");
const plugin = path.join(projectDir, "node_modules", ".bin", "pulumi-resource-remote-browser");
const workDir = fs.mkdtempSync(path.join(projectDir, "registry-schema-"));
const env = { ...process.env, ...engineEnvironment({ pulumiBin, stateDir: workDir, workDir }) };
afterAll(() => fs.rmSync(workDir, { recursive: true, force: true }));

/** Runs the CLI in the test's folder; fails naming the command and its output unless it exits 0. */
async function pulumi(args: string[]): Promise<{ stdout: string; stderr: string }> {
  const r = await runStatus(pulumiBin, args, { cwd: workDir, env });
  if (r.status !== 0) throw new Error(`pulumi ${args.join(" ")} failed (exit ${r.status}):\n${r.stderr}\n${r.stdout}`);
  return r;
}

/** A schema (a file, or a plugin asked by GetSchema) as Pulumi's schema format writes it. */
const asPulumiWrites = async (source: string): Promise<unknown> => JSON.parse((await pulumi(["package", "get-schema", source])).stdout);

describe.concurrent("the schema as the Pulumi CLI reads it", () => {
  it("pulumi schema check accepts the committed schema.json and the schema the packed plugin serves, with no diagnostic", async () => {
    for (const source of [committedFile, plugin]) {
      const { stdout, stderr } = await pulumi(["schema", "check", source]);
      expect(`${stdout}${stderr}`.trim(), source).toBe("");
    }
  });

  it("the committed schema.json is the schema as Pulumi writes it, and the plugin serves the same", async () => {
    const committed: unknown = JSON.parse(fs.readFileSync(committedFile, "utf8"));
    expect(committed).toEqual(await asPulumiWrites(committedFile));
    expect(await asPulumiWrites(plugin)).toEqual(committed);
    // Not vacuous: the committed schema has the package's resources and the metadata a listing shows.
    expect(Object.keys((committed as { resources: object }).resources).sort()).toEqual(["remote-browser:index:BrowserSession", "remote-browser:index:ReviewSessions"]);
    expect(committed).toMatchObject({ displayName: "Remote Browser", publisher: expect.any(String), logoUrl: expect.stringMatching(/^https:\/\//) });
  });

  it("catches a field the format does not define and an empty one it leaves out (the analyzer's `optional`, empty `dependencies`)", async () => {
    const committed = JSON.parse(fs.readFileSync(committedFile, "utf8")) as { resources: Record<string, { inputProperties: Record<string, object> }> };
    const withExtras = structuredClone(committed) as typeof committed & { dependencies?: unknown[] };
    withExtras.resources["remote-browser:index:ReviewSessions"]!.inputProperties.country = {
      ...withExtras.resources["remote-browser:index:ReviewSessions"]!.inputProperties.country,
      optional: true,
    };
    withExtras.dependencies = [];
    const file = path.join(workDir, "with-extras.json");
    fs.writeFileSync(file, JSON.stringify(withExtras));
    const written = await asPulumiWrites(file);
    expect(written).not.toEqual(withExtras);
    expect(written).toEqual(committed);
  });
});
