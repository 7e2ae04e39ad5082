import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { fileType } from "../../release/fileType";
import { verifyAdHoc } from "../../release/machoSign";
import { nodeBinary } from "../../release/nodeBinary";
import { askPlugin, checkAnswers } from "../../release/pluginCheck";
import { PLATFORMS } from "../../release/platforms";
import { run, runStatus } from "../../release/run";
import { RELEASE_VERSION, platformsRelease } from "./release-build";

/**
 * The signatures of the executables a release ships for the platforms this machine cannot run: macOS's
 * signed ad hoc after the injection (every page's hash recomputed here, as the kernel checks them), and
 * Windows's with no signature left that the injection broke, read by an independent tool (Debian's
 * osslsigncode, provided by scripts/osslsigncode.sh). The Windows one is also started here, under Debian's
 * Wine (scripts/wine.sh), and asked what the release workflow's `start` job asks on a Windows runner; the
 * macOS ones start only there.
 */
const root = path.resolve(__dirname, "..", "..");
const PLATFORM_IDS = "darwin-arm64,darwin-amd64,windows-amd64";
let tmp: string;
let osslsigncode: string;
const executables: Record<string, string> = {};

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "prb-release-signatures-"));
  osslsigncode = (await run("bash", [path.join(root, "scripts", "osslsigncode.sh")], { stderr: "inherit" })).trim();
  const release = await platformsRelease(PLATFORM_IDS, inject("e2e").pulumiBin);
  for (const id of PLATFORM_IDS.split(",")) {
    const dir = path.join(tmp, id);
    fs.mkdirSync(dir);
    await run("tar", ["-xzf", path.join(release, `pulumi-resource-remote-browser-v${RELEASE_VERSION}-${id}.tar.gz`), "-C", dir]);
    executables[id] = path.join(dir, `pulumi-resource-remote-browser${id.startsWith("windows") ? ".exe" : ""}`);
  }
}, 600_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe.each(["darwin-arm64", "darwin-amd64"])("the %s executable", (id) => {
  it("is signed ad hoc as the plugin, every page's hash matching, with the blob in its own segment", () => {
    const bytes = fs.readFileSync(executables[id]);
    expect(fileType(executables[id])).toBe(`Mach-O 64-bit ${id.endsWith("arm64") ? "arm64" : "x86_64"}`);
    const sig = verifyAdHoc(bytes);
    expect(sig).toMatchObject({ identifier: "pulumi-resource-remote-browser" });
    expect(sig.flags & 0x2).toBe(0x2);
    expect(sig.pages).toBeGreaterThan(bytes.length / 4096 - 300);
    expect(bytes.includes("NODE_SEA\0")).toBe(true);
  });

  it("fails the check once a byte of its code changes", () => {
    const bytes = fs.readFileSync(executables[id]);
    bytes[0x4000 + 1234] ^= 0x40;
    expect(() => verifyAdHoc(bytes)).toThrow(/page 4 \(bytes 16384–20479\) does not match its hash/);
  });
});

describe("the windows-amd64 executable", () => {
  it("is unsigned, not signed with a broken signature, and its PE checksum is right (osslsigncode)", async () => {
    const r = await runStatus(osslsigncode, ["verify", "-in", executables["windows-amd64"]]);
    const out = r.stdout + r.stderr;
    expect(out).toContain("No signature found");
    expect(out).not.toMatch(/Ignoring PE signature|invalid PE checksum|Calculated PE checksum/);
    expect(out).toMatch(/PE checksum\s+: [0-9A-F]{8}/);
    expect(fileType(executables["windows-amd64"])).toBe("PE32+ x86-64");
  });

  it("is told apart from Node's signed binary by the same check (which reads signatures)", async () => {
    const node = nodeBinary(PLATFORMS.find((p) => p.os === "windows")!);
    const r = await runStatus(osslsigncode, ["verify", "-in", node]);
    const out = r.stdout + r.stderr;
    expect(out).not.toContain("No signature found");
    expect(out).toMatch(/Signer's certificate[\s\S]*OpenJS Foundation/);
  });
});

describe("the windows-amd64 executable under Wine", () => {
  it("starts and answers GetPluginInfo and GetSchema with the release's version, as the release workflow's start job asks on Windows", async () => {
    const wine = (await run("bash", [path.join(root, "scripts", "wine.sh")], { stderr: "inherit" })).trim();
    // Wine's first start in a prefix sets up its services: seconds on an idle machine, more on a busy one.
    const answers = await askPlugin(executables["windows-amd64"], { launcher: wine, startTimeoutMs: 240_000 });
    checkAnswers(answers, RELEASE_VERSION);
    expect(answers.schema.resources).toContain("remote-browser:index:ReviewSessions");
  }, 600_000);
});
