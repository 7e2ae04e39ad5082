import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runStatus } from "../release/run";

/**
 * scripts/hosts.sh (`npm run test:hosts`) where Pulumi's language hosts cannot be found: it runs nothing,
 * says so, and passes. Where they are, it runs test/hosts/ (run by that command itself, not by `npm test`).
 */
const root = path.resolve(__dirname, "..");
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** hosts.sh with a PATH of the system's tools only and an empty cache of built hosts. */
async function hostsScript(setup: (cache: string, bin: string) => void = () => undefined, args: string[] = []) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "prb-hosts-script-"));
  dirs.push(dir);
  const bin = path.join(dir, "bin");
  fs.mkdirSync(bin);
  setup(path.join(dir, "cache", "pulumi-language-hosts"), bin);
  return runStatus("bash", [path.join(root, "scripts", "hosts.sh"), ...args], { env: { PATH: `${bin}:/usr/bin:/bin`, HOME: dir, XDG_CACHE_HOME: path.join(dir, "cache") } });
}

describe("scripts/hosts.sh", () => {
  it("with no language host on PATH or in the cache: says plainly that nothing ran, names what is missing and where it looked, exits 0", async () => {
    const r = await hostsScript();
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /^hosts: NOT RUN: no Pulumi language host found on PATH or in \S+\/cache\/pulumi-language-hosts\/v3\.248\.0 \(pulumi-language-nodejs pulumi-language-python pulumi-language-go\)/m,
    );
  });

  it("with test files named: runs only those, says which of them could not run for want of their hosts, and refuses a file that does not exist", async () => {
    const one = await hostsScript(() => undefined, ["test/hosts/go.test.ts"]);
    expect(one.status).toBe(0);
    expect(one.stdout).toMatch(/^hosts: NOT RUN: test\/hosts\/go\.test\.ts, for want of its language hosts on PATH or in \S+\/cache\/pulumi-language-hosts\/v3\.248\.0$/m);
    expect(one.stdout).not.toMatch(/nodejs\.test\.ts|python\.test\.ts/);
    const typo = await hostsScript(() => undefined, ["test/hosts/gp.test.ts"]);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain("hosts: no such test file: test/hosts/gp.test.ts");
  });
});
