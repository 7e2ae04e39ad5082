import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signAdHoc, verifyAdHoc } from "../../release/machoSign";
import { nodeBinary } from "../../release/nodeBinary";
import { PLATFORMS } from "../../release/platforms";
import { run } from "../../release/run";

/**
 * The ad-hoc signer held to an independent one: Go's linker signs every darwin executable it links ad hoc,
 * also when it cross-compiles on Linux (cmd/internal/codesign, identifier "a.out"). Signing Go's output
 * again under the same identifier must give back Go's bytes exactly, whether the signature is replaced or
 * added to a binary that has none. Go signs only darwin/arm64 (macOS on Intel runs unsigned code), so its
 * amd64 binary is the case of a binary without a signature and with room for the load command.
 */
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "prb-macho-sign-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const built: Record<string, Buffer> = {};
beforeAll(async () => {
  fs.writeFileSync(path.join(tmp, "go.mod"), "module hello\n\ngo 1.22\n");
  fs.writeFileSync(path.join(tmp, "main.go"), 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello from darwin") }\n');
  for (const arch of ["arm64", "amd64"]) {
    const out = path.join(tmp, `hello-${arch}`);
    await run("go", ["build", "-trimpath", "-o", out, "."], {
      cwd: tmp,
      env: { ...process.env, GOOS: "darwin", GOARCH: arch, CGO_ENABLED: "0", GOTOOLCHAIN: "local", GOFLAGS: "-mod=mod" },
    });
    built[arch] = fs.readFileSync(out);
  }
}, 240_000);

/** `file` without its signature: the load command gone, the file and __LINKEDIT ending where it began. */
function unsigned(file: Buffer): Buffer {
  const out = Buffer.from(file);
  const ncmds = out.readUInt32LE(16);
  let at = 32;
  let sigAt = -1;
  let linkeditAt = -1;
  for (let i = 0; i < ncmds; i++) {
    const cmd = out.readUInt32LE(at);
    if (cmd === 0x1d) sigAt = at;
    if (cmd === 0x19 && out.toString("latin1", at + 8, at + 18) === "__LINKEDIT") linkeditAt = at;
    at += out.readUInt32LE(at + 4);
  }
  expect(sigAt, "Go put its LC_CODE_SIGNATURE last").toBe(at - 16);
  const dataoff = out.readUInt32LE(sigAt + 8);
  out.fill(0, sigAt, sigAt + 16);
  out.writeUInt32LE(ncmds - 1, 16);
  out.writeUInt32LE(out.readUInt32LE(20) - 16, 20);
  out.writeBigUInt64LE(BigInt(dataoff) - out.readBigUInt64LE(linkeditAt + 40), linkeditAt + 48);
  return out.subarray(0, dataoff);
}

describe("an ad-hoc signature of a Go darwin/arm64 binary", () => {
  const arch = "arm64";
  it("is Go's own, byte for byte, when it replaces Go's", () => {
    const go = built[arch];
    expect(verifyAdHoc(go)).toMatchObject({ identifier: "a.out", flags: 0x20002 });
    const signed = signAdHoc(go, "a.out");
    expect(signed.length).toBe(go.length);
    expect(signed.equals(go)).toBe(true);
  });

  it("is Go's own, byte for byte, when added to the binary with its signature taken out", () => {
    const bare = unsigned(built[arch]);
    expect(() => verifyAdHoc(bare)).toThrow(/no code signature/);
    expect(signAdHoc(bare, "a.out").equals(built[arch])).toBe(true);
  });
});

describe("an ad-hoc signature of a Go darwin/amd64 binary, which Go leaves unsigned", () => {
  it("is added with its load command, and verifies", () => {
    expect(() => verifyAdHoc(built.amd64)).toThrow(/no code signature/);
    const signed = signAdHoc(built.amd64, "a.out");
    expect(signed.length).toBeGreaterThan(built.amd64.length);
    expect(verifyAdHoc(signed)).toMatchObject({ identifier: "a.out", pages: Math.ceil(built.amd64.length / 4096) });
    // Everything before the signature is the binary, but for the header's command count and size, the new
    // command and __LINKEDIT's size.
    expect(signed.readUInt32LE(16)).toBe(built.amd64.readUInt32LE(16) + 1);
  });

  it("starts the signature 16-byte aligned when __LINKEDIT ends elsewhere, the padding inside __LINKEDIT", () => {
    // The binary with 5 more bytes at the end of __LINKEDIT (a string table's tail, say).
    const longer = Buffer.concat([built.amd64, Buffer.alloc(5)]);
    let at = 32;
    for (let i = 0; i < longer.readUInt32LE(16); i++, at += longer.readUInt32LE(at + 4)) {
      if (longer.readUInt32LE(at) === 0x19 && longer.toString("latin1", at + 8, at + 18) === "__LINKEDIT") {
        longer.writeBigUInt64LE(longer.readBigUInt64LE(at + 48) + 5n, at + 48);
      }
    }
    expect(longer.length % 16).not.toBe(0);
    const signed = signAdHoc(longer, "a.out");
    verifyAdHoc(signed);
    const sigAt = signed.readUInt32LE(32 + longer.readUInt32LE(20) + 8);
    expect(sigAt % 16).toBe(0);
    expect(sigAt).toBeGreaterThanOrEqual(longer.length);
    expect(sigAt - longer.length).toBeLessThan(16);
  });
});

describe.each(["arm64", "amd64"])("a signed Go darwin/%s binary", (arch) => {
  const signedGo = () => signAdHoc(built[arch], "a.out");

  it("under another identifier, grows the load command and __LINKEDIT and still verifies", () => {
    const signed = signAdHoc(signedGo(), "pulumi-resource-remote-browser");
    expect(verifyAdHoc(signed)).toMatchObject({ identifier: "pulumi-resource-remote-browser" });
    // Signing again is stable: the same bytes, whatever was there before.
    expect(signAdHoc(signed, "pulumi-resource-remote-browser").equals(signed)).toBe(true);
  });

  it("fails verification when one byte of the code changes after signing", () => {
    const signed = signedGo();
    expect(verifyAdHoc(signed).pages).toBeGreaterThan(8);
    const at = 0x1000 * 7 + 123;
    signed[at] ^= 0x01;
    expect(() => verifyAdHoc(signed)).toThrow(/page 7 .* does not match its hash/);
  });

  it("fails verification when bytes follow the signature", () => {
    expect(() => verifyAdHoc(Buffer.concat([signedGo(), Buffer.from("tail")]))).toThrow(/does not end the file/);
  });
});

describe("Node's own darwin/arm64 binary, signed by its publisher", () => {
  it("gets its Developer ID signature replaced by an ad-hoc one that verifies, the code before it unchanged", () => {
    const node = fs.readFileSync(nodeBinary(PLATFORMS.find((p) => p.os === "darwin" && p.arch === "arm64")!));
    // Node's signature is no ad-hoc one: its CodeDirectory is not flagged so (and a CMS blob follows it).
    expect(() => verifyAdHoc(node)).toThrow(/is not ad hoc/);
    const signed = signAdHoc(node, "pulumi-resource-remote-browser");
    expect(verifyAdHoc(signed)).toMatchObject({ identifier: "pulumi-resource-remote-browser", flags: 0x20002 });
    let at = 32;
    let dataoff = 0;
    for (let i = 0; i < node.readUInt32LE(16); i++, at += node.readUInt32LE(at + 4)) if (node.readUInt32LE(at) === 0x1d) dataoff = node.readUInt32LE(at + 8);
    expect(signed.subarray(0x4000, dataoff).equals(node.subarray(0x4000, dataoff))).toBe(true);
    expect(signed.length).toBeLessThan(node.length);
  }, 300_000);
});

describe("the signer", () => {
  it("refuses what it cannot sign, saying why", () => {
    expect(() => signAdHoc(Buffer.from("\x7fELF not a mach-o file at all, padded out to more than 32 bytes"), "x")).toThrow(/not a 64-bit little-endian Mach-O/);
    expect(() => signAdHoc(Buffer.concat([built.arm64, Buffer.from("tail")]), "x")).toThrow(/is not the end of __LINKEDIT/);
    expect(() => signAdHoc(built.arm64, "has space")).toThrow(/printable ASCII/);
  });
});
