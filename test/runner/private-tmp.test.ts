import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { enterPrivateTmp } from "../../runner/private-tmp";

describe("the runner's own temporary folder", () => {
  let outer: string;
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.TMPDIR;
    outer = fs.mkdtempSync(path.join(os.tmpdir(), "prb-private-tmp-"));
    process.env.TMPDIR = outer;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    fs.rmSync(outer, { recursive: true, force: true });
  });

  it("takes os.tmpdir() while an action runs, and what was written there is gone with it", () => {
    const tmp = enterPrivateTmp();
    expect(path.dirname(tmp.dir)).toBe(outer);
    expect(os.tmpdir()).toBe(tmp.dir);
    // What the Automation API of older SDKs does: an event log it deletes only asynchronously, if ever.
    const logDir = fs.mkdtempSync(path.join(os.tmpdir(), "automation-logs-up-"));
    fs.writeFileSync(path.join(logDir, "eventlog.txt"), "{}\n");
    tmp.leave();
    expect(os.tmpdir()).toBe(outer);
    expect(fs.readdirSync(outer)).toEqual([]);
  });

  it("is shared by actions running at once in one process and removed after the last one", () => {
    const a = enterPrivateTmp();
    const b = enterPrivateTmp();
    expect(b.dir).toBe(a.dir);
    a.leave();
    a.leave(); // a second leave of the same action does not count as the other's
    expect(fs.existsSync(b.dir)).toBe(true);
    expect(os.tmpdir()).toBe(b.dir);
    b.leave();
    expect(fs.existsSync(b.dir)).toBe(false);
    expect(os.tmpdir()).toBe(outer);
    // Unset before, unset after.
    delete process.env.TMPDIR;
    const c = enterPrivateTmp();
    expect(process.env.TMPDIR).toBe(c.dir);
    c.leave();
    expect(process.env.TMPDIR).toBeUndefined();
  });
});
