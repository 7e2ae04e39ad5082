import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { outputsOfExport, outputsOfExportText } from "../../runner/outputs";

/**
 * Recorded with the pinned CLI from test/e2e/programs/outputs.js (every shape a stack output can take):
 * `pulumi stack export --show-secrets`, and `pulumi stack output --json` without and with --show-secrets.
 * test/e2e/browser-session.test.ts makes the same comparison live, against each test cell's CLI.
 */
const dir = path.join(__dirname, "..", "fixtures", "stack-outputs");
const read = (name: string) => JSON.parse(fs.readFileSync(path.join(dir, name), "utf8"));
const SECRET = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" };

describe("stack outputs read from one stack export", () => {
  it("gives the CLI's masked and plain views, byte for byte", () => {
    const { outputs, masked } = outputsOfExport(read("export.json"));
    expect(JSON.stringify(masked)).toBe(JSON.stringify(read("masked.json")));
    const plain = Object.fromEntries(Object.entries(outputs).map(([k, v]) => [k, v.value]));
    expect(JSON.stringify(plain)).toBe(JSON.stringify(read("plain.json")));
  });

  it("flags the top-level secrets, as the Automation API does, and masks nested ones", () => {
    const { outputs, masked } = outputsOfExport(read("export.json"));
    expect(
      Object.keys(outputs)
        .filter((k) => outputs[k]!.secret)
        .sort(),
    ).toEqual(["secretObject", "secretText"]);
    expect(outputs.nested!.secret).toBe(false);
    expect(masked.nested).toEqual({ open: "yes", closed: "[secret]", deeper: { link: "[secret]" } });
    // A secret inside a secret comes out plain in the plain view.
    expect(outputs.secretObject!.value).toEqual({ again: "twice", inner: "value", list: [1, 2] });
  });

  it("reads the root stack resource only, and nothing from a stack that has none", () => {
    const deployment = (resources: unknown[]) => ({ version: 3, deployment: { resources } });
    const stack = { type: "pulumi:pulumi:Stack", urn: "urn:pulumi:s::p::pulumi:pulumi:Stack::p-s", outputs: { a: 1 } };
    const nestedStack = { ...stack, urn: "urn:x", parent: stack.urn, outputs: { b: 2 } };
    expect(outputsOfExport(deployment([nestedStack, stack])).masked).toEqual({ a: 1 });
    expect(outputsOfExport(deployment([])).masked).toEqual({});
    expect(outputsOfExport({ version: 3, deployment: {} }).outputs).toEqual({});
  });

  it("unwraps a secret held inside a secret's plaintext (the state may nest them; the Node.js SDK flattens its own)", () => {
    const inner = { ...SECRET, plaintext: JSON.stringify("twice") };
    const outer = { ...SECRET, plaintext: JSON.stringify({ again: inner, list: [inner] }) };
    const { outputs, masked } = outputsOfExport({ deployment: { resources: [{ type: "pulumi:pulumi:Stack", outputs: { k: outer } }] } });
    expect(outputs.k).toEqual({ value: { again: "twice", list: ["twice"] }, secret: true });
    expect(masked.k).toBe("[secret]");
  });

  it("refuses an export whose secrets are ciphertext rather than take ciphertext for a value", () => {
    const exported = { deployment: { resources: [{ type: "pulumi:pulumi:Stack", outputs: { k: { ...SECRET, ciphertext: "v1:abc" } } }] } };
    expect(() => outputsOfExport(exported)).toThrow(/without its plaintext/);
  });

  it("says that the export text is not JSON without quoting any of it (it holds the secrets in plain text)", () => {
    const text = 'warning: something\n{"plaintext": "https://share.example.test/s/9f8e7d6c5b4a"}';
    expect(() => outputsOfExportText(text)).toThrow(/the stack export is not JSON/);
    try {
      outputsOfExportText(text);
    } catch (e) {
      for (const piece of ["warning", "share.example", "9f8e7d6c5b4a"]) expect(String((e as Error).message)).not.toContain(piece);
    }
    expect(outputsOfExportText(fs.readFileSync(path.join(dir, "export.json"), "utf8")).masked).toEqual(read("masked.json"));
  });
});
