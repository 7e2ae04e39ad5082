import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseArgs } from "../../release/args";
import { duplicatePackages } from "../../release/bundle";
import { fileType } from "../../release/fileType";
import { MARKER, prepareOutDir } from "../../release/outDir";
import { archiveEntries, writeArchive } from "../../release/archive";
import { archiveName, executableName, PLATFORMS, selectPlatforms } from "../../release/platforms";
import { run } from "../../release/run";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "prb-release-parts-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("npm run release's arguments", () => {
  it("takes a version, an address and a folder, in both spellings of a flag", () => {
    expect(parseArgs(["--version", "1.2.3-rc.1", "--plugin-download-url=https://example.com/releases/", "--out", "out"])).toEqual({
      version: "1.2.3-rc.1",
      pluginDownloadURL: "https://example.com/releases/",
      out: "out",
    });
  });

  it("builds the SDKs unless told --no-sdks", () => {
    expect(parseArgs(["--version", "1.2.3", "--out", "o"])).not.toHaveProperty("sdks");
    expect(parseArgs(["--no-sdks", "--version", "1.2.3", "--out", "o"])).toMatchObject({ sdks: false });
  });

  it.each([
    [[], "--version is required"],
    [["--version", "1.2"], "is not a semantic version"],
    [["--version", "v1.2.3", "--out", "o"], 'without the leading "v": 1.2.3'],
    [["--version", "1.2.3"], "--out is required"],
    [["--version", "1.2.3", "--out"], "--out needs a value"],
    [["--version", "1.2.3", "--out", "--platforms"], "--out needs a value"],
    [["--version", "1.2.3", "--version", "1.2.4"], "--version is given twice"],
    [["--version", "1.2.3", "--out", "o", "--plugin-download-url", "ftp://example.com/"], "is not a github://, gitlab:// or http(s):// address"],
    [["--versoin", "1.2.3"], 'unknown argument "--versoin"'],
  ])("refuses %j: %s", (argv, message) => {
    const got = parseArgs(argv);
    expect(got).toBeInstanceOf(Error);
    expect((got as Error).message).toContain(message);
  });

  it("names the platforms it knows when given one it does not", () => {
    expect(selectPlatforms("linux-amd64,windows-amd64").map((p) => executableName(p))).toEqual(["pulumi-resource-remote-browser", "pulumi-resource-remote-browser.exe"]);
    expect(() => selectPlatforms("linux-386")).toThrow("unknown platform linux-386 (known: linux-amd64, linux-arm64, darwin-amd64, darwin-arm64, windows-amd64)");
    expect(archiveName(PLATFORMS[3], "1.2.3")).toBe("pulumi-resource-remote-browser-v1.2.3-darwin-arm64.tar.gz");
  });
});

describe("the output folder", () => {
  it("is created when missing, and an earlier release's is emptied", () => {
    const dir = path.join(tmp, "new", "out");
    prepareOutDir(dir);
    expect(fs.readdirSync(dir)).toEqual([MARKER]);
    fs.writeFileSync(path.join(dir, "old.tar.gz"), "x");
    prepareOutDir(dir);
    expect(fs.readdirSync(dir)).toEqual([MARKER]);
  });

  it("is refused when it holds anything else, and nothing in it is touched", () => {
    const dir = path.join(tmp, "checkout");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "package.json"), "{}");
    expect(() => prepareOutDir(dir)).toThrow(/is not empty and is not the output of an earlier release/);
    expect(fs.readdirSync(dir)).toEqual(["package.json"]);
    expect(() => prepareOutDir(path.join(dir, "package.json"))).toThrow("is a file, not a folder");
  });
});

describe("an executable's type, from its header", () => {
  const write = (name: string, bytes: Buffer) => {
    const file = path.join(tmp, name);
    fs.writeFileSync(file, Buffer.concat([bytes, Buffer.alloc(512)]));
    return file;
  };
  it("tells ELF, Mach-O and PE machines apart", () => {
    const elf = (machine: number) => {
      const b = Buffer.alloc(64);
      b.writeUInt32BE(0x7f454c46, 0);
      b[4] = 2;
      b.writeUInt16LE(machine, 18);
      return b;
    };
    const macho = (cpu: number) => {
      const b = Buffer.alloc(32);
      b.writeUInt32LE(0xfeedfacf, 0);
      b.writeUInt32LE(cpu, 4);
      return b;
    };
    const pe = Buffer.alloc(256);
    pe.write("MZ", 0, "latin1");
    pe.writeUInt32LE(0x80, 0x3c);
    pe.write("PE\0\0", 0x80, "latin1");
    pe.writeUInt16LE(0x8664, 0x84);
    pe.writeUInt16LE(0x20b, 0x98);
    expect(fileType(write("elf-x64", elf(0x3e)))).toBe("ELF 64-bit x86-64");
    expect(fileType(write("elf-arm64", elf(0xb7)))).toBe("ELF 64-bit aarch64");
    expect(fileType(write("macho-x64", macho(0x01000007)))).toBe("Mach-O 64-bit x86_64");
    expect(fileType(write("macho-arm64", macho(0x0100000c)))).toBe("Mach-O 64-bit arm64");
    expect(fileType(write("pe", pe))).toBe("PE32+ x86-64");
    expect(fileType(write("script", Buffer.from("#!/usr/bin/env node\n")))).toBe("unknown");
  });

  it("reads the Node running this test as its machine's kind", () => {
    expect(fileType(process.execPath)).toBe(process.arch === "x64" ? "ELF 64-bit x86-64" : "ELF 64-bit aarch64");
  });
});

describe("the bundle's shared packages", () => {
  it("are found in two folders when npm nested a second copy", () => {
    expect(
      duplicatePackages([
        "node_modules/@grpc/grpc-js/build/src/index.js",
        "node_modules/@pulumi/pulumi/node_modules/@grpc/grpc-js/build/src/server.js",
        "node_modules/a/node_modules/semver/index.js",
        "node_modules/semver/index.js",
        "plugin/server.ts",
      ]),
    ).toEqual(["@grpc/grpc-js"]);
  });
});

describe("a plugin archive", () => {
  /** The archive of the same three files, written as a checkout with `modes` and `mtime` leaves them. */
  function archiveOf(name: string, modes: { exe: number; doc: number }, mtime: Date): Buffer {
    const dir = path.join(tmp, `archive-${name}`);
    fs.mkdirSync(dir);
    for (const [file, content, mode] of [
      ["pulumi-resource-remote-browser", "#!binary", modes.exe],
      ["LICENSE", "license text", modes.doc],
      ["README.md", "# readme", modes.doc],
    ] as const) {
      fs.writeFileSync(path.join(dir, file), content);
      fs.chmodSync(path.join(dir, file), mode);
      fs.utimesSync(path.join(dir, file), mtime, mtime);
    }
    const out = path.join(tmp, `archive-${name}.tar.gz`);
    writeArchive(out, dir, ["pulumi-resource-remote-browser", "LICENSE", "README.md"]);
    return fs.readFileSync(out);
  }

  it("has the same bytes whatever the checkout's umask and times made of its files", () => {
    const a = archiveOf("umask-022", { exe: 0o755, doc: 0o644 }, new Date("2026-01-02T03:04:05Z"));
    const b = archiveOf("umask-002", { exe: 0o775, doc: 0o664 }, new Date("2026-11-26T21:00:00Z"));
    const c = archiveOf("umask-077", { exe: 0o700, doc: 0o600 }, new Date("2020-05-05T05:05:05Z"));
    expect(b.equals(a)).toBe(true);
    expect(c.equals(a)).toBe(true);
  });

  it("holds an executable of mode 0755 and documents of 0644, owned by root, at time 0", async () => {
    archiveOf("modes", { exe: 0o700, doc: 0o664 }, new Date());
    const file = path.join(tmp, "archive-modes.tar.gz");
    expect(archiveEntries(file)).toEqual(["pulumi-resource-remote-browser", "LICENSE", "README.md"]);
    const listing = (await run("tar", ["--numeric-owner", "--full-time", "-tvzf", file], { env: { ...process.env, TZ: "UTC" } })).trim().split("\n");
    expect(listing.map((l) => l.split(/\s+/).slice(0, 2).concat(l.split(/\s+/).slice(3, 5)).join(" "))).toEqual([
      "-rwxr-xr-x 0/0 1970-01-01 00:00:00",
      "-rw-r--r-- 0/0 1970-01-01 00:00:00",
      "-rw-r--r-- 0/0 1970-01-01 00:00:00",
    ]);
  });
});
