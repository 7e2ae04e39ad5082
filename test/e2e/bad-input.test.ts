import { describe, expect, it } from "vitest";
import { RunFailed, withStack } from "./harness";
import type { E2EStack } from "./harness";

/**
 * Invalid configurations, each refused at preview by the real engine with a message that names the
 * cause, and without a single create call. Rows whose bad properties differ share one resource (the check
 * reports every failing property of a resource at once), so the 35 rows take a dozen engine runs.
 */
interface Row {
  name: string;
  args?: Record<string, unknown>;
  /** Stack config besides `args`. */
  config?: Record<string, string>;
  /** null: no key configured; "account:<spec>": a key of an account added with that spec. */
  apiKey?: string | null | { account: Record<string, unknown> };
  baseUrl?: string;
  message: RegExp;
  /** Checked against the service's catalog, which the check reads only once the local rules pass. */
  catalog?: true;
}

const chrome = { browser: "chrome" };
const ROWS: Row[] = [
  { name: "browser missing", args: {}, message: /browser.*is required/ },
  { name: "browser of the wrong type", args: { browser: 42 }, message: /browser.*must be a string, got number/ },
  { name: "browser unknown", catalog: true, args: { browser: "netscape" }, message: /"netscape" is not a browser image of the service; enabled: chrome, firefox, edge/ },
  { name: "browser disabled", catalog: true, args: { browser: "safari" }, message: /"safari" is not enabled right now; enabled: chrome/ },
  { name: "url longer than 10,000 characters", args: { ...chrome, url: `https://example.com/${"a".repeat(10_000)}` }, message: /url.*must be at most 10000 characters, got 10020/ },
  { name: "url of the wrong type", args: { ...chrome, url: true }, message: /url.*must be a string, got boolean/ },
  { name: "language not a language code", args: { ...chrome, language: "english please" }, message: /language.*must be a language code such as en or de/ },
  { name: "language of the wrong type", args: { ...chrome, language: 5 }, message: /language.*must be a string, got number/ },
  { name: "layout not a layout code", args: { ...chrome, layout: "us layout!" }, message: /layout.*must be a keyboard layout code such as us or de/ },
  {
    name: "layout a name, not a code",
    args: { ...chrome, layout: "dvorak" },
    message: /layout.*must be a keyboard layout code such as us or de \(two or three letters, optional subtags\), got "dvorak"/,
  },
  { name: "country not listed", args: { ...chrome, country: "zz" }, message: /country.*"zz" is not a listed location; use "auto", a country \(us, /s },
  { name: "city not listed", args: { ...chrome, country: "us-xyz" }, message: /country.*"us-xyz" is not a listed location/ },
  { name: "country empty", args: { ...chrome, country: "" }, message: /country.*must not be empty/ },
  { name: "egress other than residential", args: { ...chrome, egress: "datacenter" }, message: /egress.*must be "residential" when set, got "datacenter"/ },
  { name: "residential in a country without it", catalog: true, args: { ...chrome, egress: "residential", country: "jp" }, message: /egress.*a residential connection is not offered in "jp"/ },
  { name: "residential without the plan's allowance", args: { ...chrome, egress: "residential" }, apiKey: { account: { residentialMb: null } }, message: /egress.*includes no residential data/ },
  { name: "share language not offered", args: { ...chrome, shareLanguage: "nl" }, message: /shareLanguage.*must be one of en, de, fr, es, it, pt, ja, got "nl"/ },
  { name: "share language of the wrong type", args: { ...chrome, shareLanguage: ["de"] }, message: /shareLanguage.*must be a string, got object/ },
  { name: "callbackUrl with another scheme", args: { ...chrome, callbackUrl: "ftp://example.com/done" }, message: /callbackUrl.*must be an absolute http:\/\/ or https:\/\/ address/ },
  { name: "callbackUrl not a URL", args: { ...chrome, callbackUrl: "done please" }, message: /callbackUrl.*must be an absolute http:\/\/ or https:\/\/ address/ },
  { name: "callbackUrl longer than 2,000 characters", args: { ...chrome, callbackUrl: `https://example.com/${"b".repeat(2_000)}` }, message: /callbackUrl.*must be at most 2000 characters/ },
  { name: "idempotencyKey empty", args: { ...chrome, idempotencyKey: "" }, message: /idempotencyKey.*must be 1 to 128 characters, got 0/ },
  { name: "idempotencyKey of 129 characters", args: { ...chrome, idempotencyKey: "k".repeat(129) }, message: /idempotencyKey.*must be 1 to 128 characters, got 129/ },
  { name: "readyTimeoutSeconds zero", args: { ...chrome, readyTimeoutSeconds: 0 }, message: /readyTimeoutSeconds.*must be more than 0 and at most 3600, got 0/ },
  { name: "readyTimeoutSeconds too long", args: { ...chrome, readyTimeoutSeconds: 99_999 }, message: /readyTimeoutSeconds.*at most 3600, got 99999/ },
  { name: "readyTimeoutSeconds of the wrong type", args: { ...chrome, readyTimeoutSeconds: "soon" }, message: /readyTimeoutSeconds.*must be a number of seconds, got string/ },
  { name: "requireLocation of the wrong type", args: { ...chrome, requireLocation: "yes" }, message: /requireLocation.*must be a boolean, got string/ },
  { name: "waitForCapacitySeconds negative", args: { ...chrome, waitForCapacitySeconds: -1 }, message: /waitForCapacitySeconds.*must be from 0 to 3600, got -1/ },
  { name: "no API key configured", args: chrome, apiKey: null, message: /no API key is configured \(set the secret config remote-browser:apiKey or REMOTE_BROWSER_API_KEY\)/ },
  {
    name: "a wrong API key",
    args: chrome,
    apiKey: "rb_not_the_right_key_0123456789",
    message: /the service refused the API key \(remote-browser:apiKey, an explicit provider.s apiKey, or REMOTE_BROWSER_API_KEY\)/,
  },
  { name: "an account without programmatic access", args: chrome, apiKey: { account: { programmaticAccess: false } }, message: /programmatic access/i },
  { name: "API version 7 with egress", args: { ...chrome, egress: "residential" }, config: { "remote-browser:apiVersion": "v7" }, message: /egress.*is not offered by API version 7/ },
  {
    name: "API version 7 with an idempotency key",
    args: { ...chrome, idempotencyKey: "pr-42" },
    config: { "remote-browser:apiVersion": "v7" },
    message: /idempotencyKey.*is not offered by API version 7/,
  },
  {
    name: "API version 7 with a city code",
    args: { ...chrome, country: "us-dal" },
    config: { "remote-browser:apiVersion": "v7" },
    message: /country.*API version 7 takes a lower-case two-letter country code such as us or de, got "us-dal"/,
  },
  {
    name: "API version 7 with an upper-case country",
    args: { ...chrome, country: "US" },
    config: { "remote-browser:apiVersion": "v7" },
    message: /country.*API version 7 takes a lower-case two-letter country code/,
  },
  {
    name: "an API version that does not exist",
    args: chrome,
    config: { "remote-browser:apiVersion": "v9" },
    message: /remote-browser:apiVersion must be "v8" or "v7" \(the value given is neither; it is not repeated here\)/,
  },
  {
    name: "the key over plain HTTP to a remote host",
    args: chrome,
    baseUrl: "http://api.example.com/v8",
    message: /baseUrl \(or REMOTE_BROWSER_BASE_URL\) is plain http:\/\/ to a host other than this machine, and the API key must not travel unencrypted/,
  },
  {
    name: "a key without a base URL",
    args: chrome,
    baseUrl: "",
    message: /an API key is configured \(remote-browser:apiKey or REMOTE_BROWSER_API_KEY\) but no service address: set remote-browser:baseUrl or REMOTE_BROWSER_BASE_URL/,
  },
];

/** Rows that can share one engine run: the same stack config, key and address, and the same stage of the check. */
function runKey(row: Row): string {
  return JSON.stringify([row.config ?? {}, row.catalog ?? false, row.apiKey === undefined ? "the emulator's" : row.apiKey, row.baseUrl === undefined ? "the emulator's" : row.baseUrl]);
}

/**
 * Packs rows into argument sets: the check reports every failing property of a resource at once, so rows
 * whose bad properties differ share one resource. `browser: "chrome"` is the valid filler of most rows.
 */
function pack(rows: Row[]): Row[][] {
  const sets: Array<{ rows: Row[]; props: Set<string> }> = [];
  for (const row of rows) {
    const props = new Set(Object.keys(row.args ?? {}).filter((k) => !(k === "browser" && row.args![k] === "chrome")));
    if (!row.args || !("browser" in row.args)) props.add("browser");
    // The catalog's rules stop at the first one that fails: such a row has its resource to itself.
    const fits = row.catalog ? undefined : sets.find((s) => [...props].every((p) => !s.props.has(p)));
    if (fits) {
      fits.rows.push(row);
      props.forEach((p) => fits.props.add(p));
    } else {
      sets.push({ rows: [row], props });
    }
  }
  return sets.map((s) => s.rows);
}

function argsOf(rows: Row[]): Record<string, unknown> {
  const args: Record<string, unknown> = { browser: "chrome" };
  for (const row of rows) Object.assign(args, row.args);
  if (rows.some((r) => r.args && !("browser" in r.args))) delete args.browser;
  return args;
}

/** The engine runs: rows grouped by stack config, each group's rows packed into argument sets, one set per run. */
const groups = new Map<string, Row[]>();
for (const row of ROWS) groups.set(runKey(row), [...(groups.get(runKey(row)) ?? []), row]);
const RUNS: Row[][] = [...groups.values()].flatMap(pack);

describe.concurrent("invalid configurations are refused at preview", () => {
  for (const rows of RUNS) {
    it(`refuses ${rows.map((r) => r.name).join("; ")}`, async () => {
      const row = rows[0]!; // the rows of a run share its config, key and address
      await withStack(
        "args.js",
        async (stack: E2EStack) => {
          let apiKey: string | null | undefined;
          if (row.apiKey && typeof row.apiKey === "object") {
            apiKey = `rb_account_${Math.random().toString(16).slice(2)}_0000`;
            stack.emulator.control.addAccount({ apiKey, ...row.apiKey.account } as never);
          } else {
            apiKey = row.apiKey;
          }
          const result = await stack.run("preview", { config: { args: JSON.stringify(argsOf(rows)), ...row.config }, apiKey, baseUrl: row.baseUrl }).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(result, "the preview should fail").toBeInstanceOf(RunFailed);
          const text = (result as RunFailed).stdout + (result as RunFailed).stderr;
          for (const r of rows) expect(text, r.name).toMatch(r.message);
          expect(stack.emulator.control.books().createCalls).toBe(0);
          for (const secret of [stack.emulator.apiKey, apiKey].filter((k): k is string => !!k)) expect(text).not.toContain(secret);
        },
        { destroy: false },
      );
    });
  }
  it("has at least 30 rows, in far fewer engine runs", () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(30);
    expect(RUNS.flat()).toHaveLength(ROWS.length);
    expect(RUNS.length).toBeLessThanOrEqual(15);
  });
});
