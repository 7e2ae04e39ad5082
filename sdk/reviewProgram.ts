import * as pulumi from "@pulumi/pulumi";
import { BrowserSession } from "./browserSession";
import type { ShareLanguage } from "./browserSession";
import { getImages, getUsage } from "./functions";

/**
 * The review environment of one pull request: one browser session per browser, each opening the pull
 * request's preview, in a stack of its own (`pr-<number>`).
 *
 * Stack configuration (project namespace):
 *
 * | key                      | required | meaning                                                              |
 * |--------------------------|----------|----------------------------------------------------------------------|
 * | `prNumber`               | yes      | the pull request's number                                            |
 * | `previewUrl`             | yes      | the page the sessions open (the pull request's preview deployment)  |
 * | `browsers`               | no       | browser image ids, a JSON list or comma-separated; default: the first `maxBrowsers` enabled images |
 * | `maxBrowsers`            | no       | how many enabled images to pick when `browsers` is not set; default 2 |
 * | `shareLanguage`          | no       | viewer language of the share links (`en`, `de`, `fr`, `es`, `it`, `pt`, `ja`) |
 * | `pullRequestUrl`         | no       | where the viewer goes when a reviewer leaves a session; default `previewUrl` |
 * | `waitForCapacitySeconds` | no       | wait this long for free running slots instead of failing; default `remote-browser:waitForCapacitySeconds`, else 0 |
 *
 * Before it asks for sessions the program reads the service's images (to pick or check the browsers) and
 * the account's usage, and fails early with a clear message when the account has no room for the new
 * sessions and no capacity wait is configured.
 *
 * The body is exported as a function, so the program runs both with `pulumi up` (examples/pr-environment
 * re-exports it) and through the package's Automation API runner, which the review-sessions workflows run
 * it with from the installed package (`--program <package>/dist/sdk/reviewProgram.js`).
 */
export async function reviewProgram() {
  const config = new pulumi.Config();
  const prNumber = readPrNumber(config);
  const previewUrl = readHttpUrl(config, "previewUrl", true)!;
  const callbackUrl = readHttpUrl(config, "pullRequestUrl", false) ?? previewUrl;
  const shareLanguage = config.get("shareLanguage") as ShareLanguage | undefined;
  // Unset: each session takes the provider's default (`remote-browser:waitForCapacitySeconds`).
  const waitForCapacitySeconds = config.getNumber("waitForCapacitySeconds", { min: 0, max: 3600 });

  const [{ images }, usage, held] = await Promise.all([getImages(), getUsage(), sessionsOfThePreviousUpdate()]);
  const browsers = pickBrowsers(config, images);

  // A browser this stack already has a session for needs no new slot: the session is kept, or ended
  // before its replacement starts. Only the browsers new to this stack need free slots.
  const starting = browsers.filter((b) => !(b in held));
  checkCapacity(usage, starting, waitForCapacitySeconds);

  const sessions: Record<string, BrowserSession> = {};
  for (const browser of browsers) {
    sessions[browser] = new BrowserSession(`pr-${prNumber}-${browser}`, {
      browser,
      url: previewUrl,
      callbackUrl,
      shareLanguage,
      waitForCapacitySeconds,
    });
  }
  const each = <T>(f: (s: BrowserSession) => pulumi.Output<T>) => pulumi.all(Object.fromEntries(Object.entries(sessions).map(([b, s]) => [b, f(s)])));

  const stack = pulumi.getStack();
  return {
    prNumber,
    previewUrl,
    browsers,
    /** Browser id -> the session's vmId. */
    sessionIds: each((s) => s.vmId),
    /** Browser id -> share link. Secret: each link is a password to its session. */
    shareUrls: pulumi.secret(each((s) => s.shareUrl)),
    /** Text for the pull request, with no link in it. */
    reviewers:
      `Pull request #${prNumber} has ${browsers.length} review session(s), one per browser (${browsers.join(", ")}), ` +
      `each opening its preview. The share links are secret: pulumi stack output shareUrls --show-secrets --stack ${stack}`,
    capacity: {
      runningSlotsFree: usage.runningSessionsRemaining,
      runningSlotLimit: usage.runningSessionLimit,
      sessionsStarting: starting.length,
      waitForCapacitySeconds: effectiveCapacityWait(waitForCapacitySeconds),
    },
  };
}

/** The runner loads a program module's default export. */
export default reviewProgram;

function readPrNumber(config: pulumi.Config): number {
  // A named key: test/package.test.ts reads a require call with a string literal as a module load.
  const key = "prNumber";
  const raw = config.require(key);
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < 1) {
    throw new pulumi.RunError(`prNumber must be a pull request number (a positive integer), got "${raw}"`);
  }
  return n;
}

function readHttpUrl(config: pulumi.Config, key: string, required: boolean): string | undefined {
  const raw = required ? config.require(key) : config.get(key);
  if (raw === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) {
    throw new pulumi.RunError(`${key} must be an http(s) address, got "${raw}"`);
  }
  return raw;
}

/** The capacity wait the sessions will use: their own, else the provider's configuration, else 0. */
function effectiveCapacityWait(own: number | undefined): number {
  if (own !== undefined) return own;
  const raw = new pulumi.Config("remote-browser").get("waitForCapacitySeconds") ?? process.env.REMOTE_BROWSER_WAIT_FOR_CAPACITY_SECONDS;
  const n = Number(raw ?? 0);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

function pickBrowsers(config: pulumi.Config, images: Array<{ id: string; enabled: boolean }>): string[] {
  const enabled = images.filter((i) => i.enabled).map((i) => i.id);
  const raw = config.get("browsers");
  if (raw === undefined || raw.trim() === "") {
    const max = config.getNumber("maxBrowsers", { min: 1 }) ?? 2;
    if (enabled.length === 0) throw new pulumi.RunError("the service has no enabled browser image to review with");
    return enabled.slice(0, max);
  }
  const wanted = raw.trim().startsWith("[") ? parseList(raw) : raw.split(",");
  const browsers = [...new Set(wanted.map((b) => b.trim()).filter(Boolean))];
  if (browsers.length === 0) throw new pulumi.RunError(`browsers lists no browser: "${raw}"`);
  const unknown = browsers.filter((b) => !enabled.includes(b));
  if (unknown.length > 0) {
    const verb = unknown.length === 1 ? "is not an enabled image" : "are not enabled images";
    throw new pulumi.RunError(`browsers: ${unknown.join(", ")} ${verb}; enabled: ${enabled.join(", ")}`);
  }
  return browsers;
}

function parseList(raw: string): string[] {
  try {
    const list: unknown = JSON.parse(raw);
    if (Array.isArray(list)) return list.map(String);
  } catch {
    // reported below
  }
  throw new pulumi.RunError(`browsers must be a JSON list or comma-separated image ids, got "${raw}"`);
}

function checkCapacity(usage: { runningSessionsRemaining: number; runningSessionLimit: number; cycleSessionsRemaining: number | null }, starting: string[], ownWait: number | undefined): void {
  const needed = starting.length;
  if (needed === 0) return;
  // The capacity wait covers the running limit only; sessions per billing cycle are not waited for.
  if (usage.cycleSessionsRemaining !== null && usage.cycleSessionsRemaining < needed) {
    throw new pulumi.RunError(
      `the account can start ${usage.cycleSessionsRemaining} more session(s) in this billing cycle, ` +
        `but this pull request needs ${needed} new one(s) (${starting.join(", ")}): wait for the next cycle, ` +
        "upgrade the plan, or set fewer browsers",
    );
  }
  const wait = effectiveCapacityWait(ownWait);
  if (usage.runningSessionsRemaining >= needed) return;
  if (wait > 0) {
    // The SDK's log call resolves once the line is sent and never rejects; the program does not wait on it.
    void pulumi.log.info(`${usage.runningSessionsRemaining} free running slot(s) for ${needed} new session(s): ` + `each session waits up to ${wait} s for a slot`);
    return;
  }
  throw new pulumi.RunError(
    `the account has ${usage.runningSessionsRemaining} free running slot(s) of ${usage.runningSessionLimit}, ` +
      `but this pull request needs ${needed} new session(s) (${starting.join(", ")}). Close other pull requests' ` +
      "environments, set fewer browsers, or set waitForCapacitySeconds (or remote-browser:waitForCapacitySeconds) " +
      "to wait for free slots",
  );
}

/**
 * The sessions this stack held after its previous update (browser id -> vmId), read from its own
 * `sessionIds` output. Empty on the first update.
 *
 * The outputs come from the engine's built-in `pulumi:pulumi:readStackOutputs` function (the lookup a stack
 * reference makes), called as a function rather than through a `StackReference` resource: a resource would
 * be recorded in the state with the outputs it read, and every `pulumi refresh` after an update would read
 * newer ones and report it as changed. A function call leaves nothing in the state.
 */
async function sessionsOfThePreviousUpdate(): Promise<Record<string, string>> {
  const name = `${pulumi.getOrganization()}/${pulumi.getProject()}/${pulumi.getStack()}`;
  const read: { outputs?: Record<string, unknown> } = await pulumi.runtime.invoke("pulumi:pulumi:readStackOutputs", { name });
  const value = read.outputs?.sessionIds;
  return value && typeof value === "object" ? (value as Record<string, string>) : {};
}
