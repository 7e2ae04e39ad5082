import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cachedFolder, filesOf, keyOf } from "./helpers/input-cache";

/** The cache of test inputs kept between runs (test/helpers/input-cache.ts): never stale, never half-built. */
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "prb-input-cache-"));
  dirs.push(d);
  return d;
}

describe("cachedFolder", () => {
  it("builds a key once and reuses it; a changed input is another key and builds again", async () => {
    const root = tmp();
    let builds = 0;
    const build = (text: string) => (dir: string) => {
      builds++;
      fs.writeFileSync(path.join(dir, "out.txt"), text);
    };
    const a = keyOf(Buffer.from("tarball v1"), "3.248.0");
    const first = await cachedFolder(root, a, build("one"));
    const again = await cachedFolder(root, a, build("two"));
    expect([first.hit, again.hit, builds]).toEqual([false, true, 1]);
    expect(fs.readFileSync(path.join(again.dir, "out.txt"), "utf8")).toBe("one");

    const b = keyOf(Buffer.from("tarball v2"), "3.248.0");
    expect(b).not.toBe(a);
    expect(keyOf(Buffer.from("tarball v1"), "3.270.0")).not.toBe(a);
    const changed = await cachedFolder(root, b, build("three"));
    expect([changed.hit, builds]).toEqual([false, 2]);
    expect(fs.readFileSync(path.join(changed.dir, "out.txt"), "utf8")).toBe("three");
  });

  it("a build that fails leaves no entry, so the next use builds again", async () => {
    const root = tmp();
    await expect(
      cachedFolder(root, "k", () => {
        throw new Error("npm install failed");
      }),
    ).rejects.toThrow("npm install failed");
    expect(fs.readdirSync(root)).toEqual([]);
    expect((await cachedFolder(root, "k", (dir) => fs.writeFileSync(path.join(dir, "x"), ""))).hit).toBe(false);
  });

  it("removes entries unused for two hours beyond the three last used, and keeps recent ones", async () => {
    const root = tmp();
    const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000);
    for (const [name, h] of [
      ["old1", 5],
      ["old2", 4],
      ["old3", 3],
      ["recent", 1],
    ] as const) {
      fs.mkdirSync(path.join(root, name));
      fs.writeFileSync(path.join(root, name, ".complete"), "");
      fs.utimesSync(path.join(root, name), hoursAgo(h), hoursAgo(h));
    }
    await cachedFolder(root, "new", () => undefined);
    // In use: new; the three last used: new, recent, old3; old1 and old2 are old and beyond them.
    expect(fs.readdirSync(root).sort()).toEqual(["new", "old3", "recent"]);
  });
});

describe("filesOf", () => {
  it("keys a folder by its files' paths and contents: a changed, renamed or added file is another key; a missing input is left out", () => {
    const root = tmp();
    fs.mkdirSync(path.join(root, "sdk", "pkg"), { recursive: true });
    fs.writeFileSync(path.join(root, "sdk", "pkg", "a.py"), "one");
    fs.writeFileSync(path.join(root, "sdk", "setup.py"), "setup()");
    const key = () => keyOf(...filesOf(root, ["sdk", "missing.txt"]));
    const first = key();
    expect(key(), "the same files, the same key").toBe(first);
    fs.writeFileSync(path.join(root, "sdk", "pkg", "a.py"), "two");
    const changed = key();
    expect(changed).not.toBe(first);
    fs.renameSync(path.join(root, "sdk", "pkg", "a.py"), path.join(root, "sdk", "pkg", "b.py"));
    const renamed = key();
    expect(renamed).not.toBe(changed);
    fs.writeFileSync(path.join(root, "sdk", "extra"), "");
    expect(key()).not.toBe(renamed);
    expect(filesOf(root, ["missing.txt"])).toEqual([]);
  });
});
