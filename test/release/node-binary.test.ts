import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeBinary } from "../../release/nodeBinary";
import { NODE_VERSION, PLATFORMS } from "../../release/platforms";

/**
 * The Node binaries a release is made from, as the cache keeps them: a cached copy that changed since it
 * was fetched is never used. The test works on a cache of its own (XDG_CACHE_HOME), seeded from the
 * real one when it has the binary; the fetch goes through npm, whose own cache usually answers it.
 */
const platform = PLATFORMS.find((p) => p.os === "windows")!;
const sha256 = (file: string) => crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");

let cache: string;
let saved: string | undefined;
let cached: string;
beforeAll(() => {
  const real = nodeBinary(platform);
  saved = process.env.XDG_CACHE_HOME;
  cache = fs.mkdtempSync(path.join(os.tmpdir(), "prb-node-binary-"));
  process.env.XDG_CACHE_HOME = cache;
  cached = path.join(cache, "pulumi-remote-browser", "release-node", `v${NODE_VERSION}`, platform.npm.name, "node.exe");
  fs.mkdirSync(path.dirname(cached), { recursive: true });
  fs.copyFileSync(real, cached);
}, 300_000);
afterAll(() => {
  if (saved === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = saved;
  fs.rmSync(cache, { recursive: true, force: true });
});

describe("a cached Node binary", () => {
  it("is used as it is when it has its pinned SHA-256", () => {
    const warnings: string[] = [];
    const before = fs.statSync(cached).mtimeMs;
    expect(nodeBinary(platform, (l) => warnings.push(l))).toBe(cached);
    expect(warnings).toEqual([]);
    expect(fs.statSync(cached).mtimeMs).toBe(before);
  });

  it("is fetched again, and said so, when one byte of it changed in the cache", () => {
    const bytes = fs.readFileSync(cached);
    bytes[0x2000] ^= 0xff;
    fs.writeFileSync(cached, bytes);
    const warnings: string[] = [];
    expect(nodeBinary(platform, (l) => warnings.push(l))).toBe(cached);
    expect(warnings).toEqual([expect.stringMatching(/node\.exe has SHA-256 [0-9a-f]{64}, not the pinned [0-9a-f]{64}: fetching it again$/)]);
    expect(sha256(cached)).toBe(platform.npm.sha256);
  }, 300_000);

  it("is fetched again when the cache holds something else in its place", () => {
    fs.writeFileSync(cached, "#!/bin/sh\necho not node\n");
    const warnings: string[] = [];
    expect(nodeBinary(platform, (l) => warnings.push(l))).toBe(cached);
    expect(warnings).toHaveLength(1);
    expect(sha256(cached)).toBe(platform.npm.sha256);
  }, 300_000);
});
