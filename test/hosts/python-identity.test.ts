import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { run } from "../../release/run";
import { type PulumiCli, accountBooks, newAccount } from "../e2e/plain-cli";
import { ARCHIVE, acquireFrom, hostsBed, stack } from "./hosts";

/**
 * A session belongs to exactly one resource of one stack, from Python under Pulumi's Python language host
 * on the release's wheel (the plugin downloaded by the engine), with the plain CLI and no setting for it
 * (no idempotencySecret): two stacks of one project and stack name on two file backends, two resources
 * whose URNs differ only by their parent's type, and every kind of replacement on a running limit of 1.
 * The program is programs/python-identity; each test has copies, stacks and accounts of its own, on one
 * virtualenv.
 */
const BROWSER_SESSION = "remote-browser:index:BrowserSession";
const bed = hostsBed("python-identity", ["python"]);
const text = (r: { stdout: string; stderr: string }) => `${r.stdout}\n${r.stderr}`;
const statusOf = (vmId: string) => bed.emulator.control.sessions().find((s) => s.vmId === vmId)!.status;

/** The program's requirements and the release's wheel in one virtualenv, made once for the file's tests. */
let venv: Promise<string> | undefined;
function sharedVenv(): Promise<string> {
  venv ??= (async () => {
    const wheels = path.join(inject("hosts").sdks, "python");
    const wheel = path.join(
      wheels,
      fs.readdirSync(wheels).find((f) => f.endsWith("-py3-none-any.whl"))!,
    );
    const dir = path.join(bed.base, "venv");
    await run("python3", ["-m", "venv", dir]);
    // The requirements of examples/python-review, the manifest Dependabot keeps current.
    const requirements = path.join(__dirname, "..", "..", "examples", "python-review", "requirements.txt");
    await run(path.join(dir, "bin", "pip"), ["install", "--quiet", "--disable-pip-version-check", "-r", requirements, wheel]);
    return dir;
  })();
  return venv;
}

/** A copy of the program at `name`, on the shared virtualenv, with a stack `dev` on a backend of its own. */
async function program(name: string, config: Record<string, string> = {}) {
  const dir = path.join(bed.base, name);
  fs.cpSync(path.join(__dirname, "programs", "python-identity"), dir, { recursive: true });
  const project = path.join(dir, "Pulumi.yaml");
  const yaml = fs.readFileSync(project, "utf8");
  expect(yaml).toContain("virtualenv: venv\n");
  fs.writeFileSync(project, yaml.replace("virtualenv: venv\n", `virtualenv: ${await sharedVenv()}\n`));
  const { cli, account } = await stack(bed.pulumiBin, dir, path.join(bed.base, `${name}-state`), bed.emulator, config);
  acquireFrom(cli, `${bed.server.url}py-identity-${name}/`);
  return { cli, account };
}

const sessionsOf = async (cli: PulumiCli) => (await cli.resources()).filter((r) => r.type === BROWSER_SESSION);

/** After a test, whatever it left running destroyed, so that a failure leaves no session behind. */
async function leaveNothingRunning(accountId: string, clis: PulumiCli[]) {
  for (const cli of clis) if (accountBooks(bed.emulator, accountId).neverEnded > 0) await cli.run(["destroy", "--yes"]);
}

describe.concurrent("from Python: a session belongs to exactly one resource of one stack", () => {
  it("two stacks of one project and stack name `dev` on two file backends, one account, no idempotencySecret: a session each; destroying the second leaves the first's running", async () => {
    const { cli: a, account } = await program("twin-a");
    const { cli: b } = await program("twin-b");
    try {
      // The second stack on the first's account: the README's setup for two checkouts of one program.
      await b.clean(["config", "set", "--secret", "remote-browser:apiKey"], account.apiKey);
      await a.clean(["up", "--yes"]);
      await b.clean(["up", "--yes"]);
      const [sessionA] = await sessionsOf(a);
      const [sessionB] = await sessionsOf(b);
      expect(sessionA!.urn, "the same URN in both stacks").toBe(sessionB!.urn);
      expect(sessionB!.id).not.toBe(sessionA!.id);
      expect(accountBooks(bed.emulator, account.accountId)).toMatchObject({ started: 2, running: 2 });

      await b.clean(["destroy", "--yes"]);
      expect(statusOf(sessionA!.id)).toBe("running");
      expect(statusOf(sessionB!.id)).toMatch(/^(stopping|deleted)$/);
      await a.clean(["refresh", "--yes", "--expect-no-changes"]);
      expect((await sessionsOf(a)).map((s) => s.id)).toEqual([sessionA!.id]);
      await a.clean(["destroy", "--yes"]);
      expect(accountBooks(bed.emulator, account.accountId)).toMatchObject({ started: 2, running: 0, neverEnded: 0 });
      expect(bed.server.served).toContain(`/py-identity-twin-b/${ARCHIVE}`);
    } finally {
      await leaveNothingRunning(account.accountId, [a, b]);
    }
  });

  it("every replacement on a running limit of 1, deleteBeforeReplace left unset: a `url` change, `up --replace <urn>` and `state taint` then a plain `up` in the update that changes a provider setting each give a new running session and end the old one", async () => {
    const { cli } = await program("replace", { url: "https://identity.preview.example.com/first" });
    // The stack's key swapped for an account of its own whose running limit is 1.
    const account = newAccount(bed.emulator, { runningLimit: 1 });
    await cli.clean(["config", "set", "--secret", "remote-browser:apiKey"], account.apiKey);
    /** A new session in the stack, running, and `old` ended. */
    const replaced = async (old: string) => {
      const [now] = await sessionsOf(cli);
      expect(now!.id).not.toBe(old);
      expect(statusOf(now!.id)).toBe("running");
      expect(statusOf(old)).toMatch(/^(stopping|deleted)$/);
      return now!;
    };
    try {
      await cli.clean(["up", "--yes"]);
      let [session] = await sessionsOf(cli);
      expect(statusOf(session!.id)).toBe("running");

      // An input the service is sent: the engine asks the provider, which answers with deleteBeforeReplace.
      await cli.clean(["config", "set", "url", "https://identity.preview.example.com/second"]);
      const changed = await cli.clean(["up", "--yes"]);
      expect(text(changed)).not.toContain("was not replaced");
      session = await replaced(session!.id);
      expect(bed.emulator.control.sessions().find((s) => s.vmId === session!.id)!.url).toBe("https://identity.preview.example.com/second");

      // The engine replaces alone, create-before-delete: the limit leaves no room, so the old one is ended first, saying so.
      const replace = await cli.ok(["up", "--yes", "--replace", session!.urn]);
      expect(text(replace)).toContain(`leaves no room for the replacement beside session ${session!.id}, so that session was ended first`);
      expect(text(replace)).not.toContain("was not replaced");
      session = await replaced(session!.id);

      // A taint in the update that changes a provider setting: the engine creates the replacement in the
      // plugin process of the new settings, which it shows nothing of the session.
      await cli.clean(["config", "set", "remote-browser:requestTimeoutSeconds", "20"]);
      await cli.clean(["state", "taint", session!.urn]);
      const tainted = await cli.ok(["up", "--yes"]);
      expect(text(tainted)).toContain(`leaves no room for the replacement beside session ${session!.id}, so that session was ended first`);
      expect(text(tainted)).not.toContain("was not replaced");
      session = await replaced(session!.id);

      expect(accountBooks(bed.emulator, account.accountId)).toMatchObject({ started: 4, running: 1 });
      await cli.clean(["destroy", "--yes"]);
      expect(accountBooks(bed.emulator, account.accountId)).toMatchObject({ started: 4, running: 0, neverEnded: 0 });
    } finally {
      await leaveNothingRunning(account.accountId, [cli]);
    }
  });

  it("`session` with the same inputs under a component of type acme:review:Desktop and under acme:review:Mobile: two sessions", async () => {
    const { cli, account } = await program("parents", { parents: "true" });
    try {
      await cli.clean(["up", "--yes"]);
      const sessions = await sessionsOf(cli);
      expect(sessions.map((s) => s.urn).sort()).toEqual([
        `urn:pulumi:dev::hosts-python-identity::acme:review:Desktop$${BROWSER_SESSION}::session`,
        `urn:pulumi:dev::hosts-python-identity::acme:review:Mobile$${BROWSER_SESSION}::session`,
      ]);
      const outputs = JSON.parse((await cli.ok(["stack", "output", "--json"])).stdout) as { desktopId: string; mobileId: string };
      expect(outputs.mobileId).not.toBe(outputs.desktopId);
      expect([outputs.desktopId, outputs.mobileId].map(statusOf)).toEqual(["running", "running"]);
      expect(accountBooks(bed.emulator, account.accountId)).toMatchObject({ started: 2, running: 2 });
      await cli.clean(["destroy", "--yes"]);
      expect(accountBooks(bed.emulator, account.accountId)).toMatchObject({ started: 2, running: 0, neverEnded: 0 });
    } finally {
      await leaveNothingRunning(account.accountId, [cli]);
    }
  });
});
