import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeBinary } from "../../release/nodeBinary";
import { authenticode, peChecksum, stripAuthenticode, withChecksum } from "../../release/peSignature";
import { PLATFORMS } from "../../release/platforms";
import { run, runStatus } from "../../release/run";

/**
 * Node's signed Windows binary, its Authenticode signature taken out as the release does before the
 * injection, read by an independent tool (Debian's osslsigncode, provided by scripts/osslsigncode.sh).
 */
const root = path.resolve(__dirname, "..", "..");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "prb-pe-signature-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
let node: Buffer;
let osslsigncode: string;
beforeAll(async () => {
  osslsigncode = (await run("bash", [path.join(root, "scripts", "osslsigncode.sh")], { stderr: "inherit" })).trim();
  node = fs.readFileSync(nodeBinary(PLATFORMS.find((p) => p.os === "windows")!));
}, 300_000);

async function verify(bytes: Buffer, name: string): Promise<string> {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, bytes);
  const r = await runStatus(osslsigncode, ["verify", "-in", file]);
  return r.stdout + r.stderr;
}

describe("Node's Windows binary", () => {
  it("is signed, and its header's checksum is the one computed here", async () => {
    const sig = authenticode(node)!;
    expect(sig.offset + sig.size).toBe(node.length);
    expect(peChecksum(node)).toBe(node.readUInt32LE(node.readUInt32LE(0x3c) + 24 + 64));
    expect(await verify(node, "node.exe")).toMatch(/Signer's certificate[\s\S]*OpenJS Foundation/);
  });

  it("without its signature is unsigned, not tampered with: nothing after its sections, its checksum right", async () => {
    const sig = authenticode(node)!;
    const bare = stripAuthenticode(node);
    expect(authenticode(bare)).toBeUndefined();
    expect(bare.length).toBe(sig.offset);
    expect(bare.subarray(0x400, 0x10000).equals(node.subarray(0x400, 0x10000))).toBe(true);
    const out = await verify(bare, "bare.exe");
    expect(out).toContain("No signature found");
    expect(out).not.toMatch(/Ignoring PE signature|invalid PE checksum|Calculated PE checksum/);
    // Taking out a signature from a file that has none changes nothing.
    expect(stripAuthenticode(bare).equals(bare)).toBe(true);
  });

  it("with bytes changed after the signature is taken out, gets its checksum right again", async () => {
    const changed = stripAuthenticode(node);
    changed[0x2000] ^= 0xff;
    expect(await verify(changed, "changed.exe")).toMatch(/invalid PE checksum/);
    expect(await verify(withChecksum(changed), "rechecked.exe")).not.toMatch(/invalid PE checksum/);
  });

  it("with bytes after its certificate table is refused, not cut", () => {
    expect(() => stripAuthenticode(Buffer.concat([node, Buffer.from("appended")]))).toThrow(/is not the end of the file/);
    expect(() => stripAuthenticode(Buffer.from("MZ but nothing else, padded past the DOS header's 64 bytes ............."))).toThrow(/not a PE executable/);
  });
});
