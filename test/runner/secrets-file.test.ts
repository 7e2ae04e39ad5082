import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readSecretsFile } from "../../runner/secrets-file";
import { UsageError } from "../../runner/usage";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "prb-secrets-file-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function secretsFile(mode: number): string {
  const file = path.join(dir, `secrets-${mode.toString(8)}.json`);
  fs.writeFileSync(file, JSON.stringify({ "remote-browser:apiKey": "rb_test_key_0123456789" }));
  // Set after writing: the process's umask would narrow the mode given to writeFileSync.
  fs.chmodSync(file, mode);
  return file;
}

describe("--secrets-file", () => {
  it.each([0o600, 0o400])("reads a file only its owner can read or write (mode %o)", (mode) => {
    expect(readSecretsFile(secretsFile(mode))).toEqual({ "remote-browser:apiKey": "rb_test_key_0123456789" });
  });

  it.each([0o640, 0o604, 0o620, 0o602, 0o610, 0o601, 0o644, 0o666])("refuses a file with any group or other bit (mode %o), saying how to make it private", (mode) => {
    const file = secretsFile(mode);
    const read = () => readSecretsFile(file);
    expect(read).toThrow(UsageError);
    expect(read).toThrow(`--secrets-file ${file}: open to other users (mode ${mode.toString(8)}); make it private first: chmod 600 ${file}`);
  });

  it("refuses what is not a JSON object of non-empty strings, without quoting the file", () => {
    const cases: Array<[string, RegExp]> = [
      ["not json rb_secret_value", /not valid JSON$/],
      ['["a"]', /must hold a JSON object/],
      ['{"remote-browser:apiKey": ""}', /the value of remote-browser:apiKey must be a non-empty string/],
      ['{"remote-browser:apiKey": 42}', /the value of remote-browser:apiKey must be a non-empty string/],
    ];
    for (const [text, message] of cases) {
      const file = path.join(dir, "bad.json");
      fs.writeFileSync(file, text, { mode: 0o600 });
      expect(() => readSecretsFile(file)).toThrow(message);
      expect(() => readSecretsFile(file)).not.toThrow(/rb_secret_value/);
    }
    expect(() => readSecretsFile(dir)).toThrow(/not a file/);
    expect(() => readSecretsFile(path.join(dir, "missing.json"))).toThrow(UsageError);
  });
});
