import { describe, expect, it } from "vitest";
import { plainCredentialWarning } from "../../core/config";
import { checkConfig, configuredStackIdentity, credentialsIn, diffConfig, projectCredentialWarning, settingsFrom, STACK_IDENTITY } from "../../plugin/providerConfig";
import { isSecret, reveal, secret } from "../../engine-conventions/wire";

/** The provider's own settings as the plugin's CheckConfig, DiffConfig and Configure read them. */
describe("CheckConfig", () => {
  const ok = { apiKey: secret("rb_key_0123456789"), baseUrl: "https://api.example.com/v8" };

  it("accepts good settings, numbers as the engine sends them too", () => {
    expect(checkConfig({ ...ok, waitForCapacitySeconds: 30, requestTimeoutSeconds: "20", apiVersion: "v7" }, {}).failures).toEqual([]);
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ["apiVersion", "v9", /remote-browser:apiVersion must be "v8" or "v7" \(the value given is neither; it is not repeated here\)/],
    ["waitForCapacitySeconds", 7200, /waitForCapacitySeconds must be a number of seconds from 0 to 3600, got 7200/],
    ["requestTimeoutSeconds", "soon", /requestTimeoutSeconds must be a number of seconds/],
    ["idempotencySecret", secret("short"), /idempotencySecret must be at least 16 characters/],
  ];
  for (const [property, value, reason] of bad) {
    it(`refuses a bad ${property}, naming it in the reason and on no property (the engine would print the value)`, () => {
      const { failures } = checkConfig({ ...ok, [property]: value }, {});
      expect(failures).toEqual([{ property: "", reason: expect.stringMatching(reason) }]);
      expect(failures[0]!.reason).toContain(property);
    });
  }

  it("refuses a bad value that comes from the environment fallback as well", () => {
    expect(checkConfig(ok, { REMOTE_BROWSER_API_VERSION: "v6" }).failures).toEqual([
      { property: "", reason: expect.stringMatching(/apiVersion \(or REMOTE_BROWSER_API_VERSION\)|apiVersion must be/) },
    ]);
  });

  it("hands the key and the idempotency secret back as secrets even when they came in plain, so the state never holds them in clear", () => {
    const { inputs } = checkConfig({ apiKey: "rb_plain_key_0123", idempotencySecret: "0123456789abcdef0123", baseUrl: "https://api.example.com/v8" }, {});
    expect(isSecret(inputs.apiKey)).toBe(true);
    expect(isSecret(inputs.idempotencySecret)).toBe(true);
    expect(isSecret(inputs.baseUrl)).toBe(false);
    expect(reveal(inputs)).toEqual({
      apiKey: "rb_plain_key_0123",
      idempotencySecret: "0123456789abcdef0123",
      baseUrl: "https://api.example.com/v8",
      [STACK_IDENTITY]: expect.stringMatching(/^stack-[0-9a-f-]{36}$/),
    });
  });

  it("records a stack identity drawn at random the first time and kept from the recorded inputs after, which DiffConfig does not compare", () => {
    const first = checkConfig({ ...ok }, {}).inputs[STACK_IDENTITY];
    const other = checkConfig({ ...ok }, {}).inputs[STACK_IDENTITY];
    // Two stacks (two backends, same project and stack name): two identities.
    expect(first).toMatch(/^stack-[0-9a-f-]{36}$/);
    expect(other).not.toBe(first);
    // Every later CheckConfig of the same stack (the run after a killed update included) keeps it.
    const later = checkConfig({ ...ok, requestTimeoutSeconds: 20 }, {}, undefined, { ...ok, [STACK_IDENTITY]: first });
    expect(later.inputs[STACK_IDENTITY]).toBe(first);
    // A stack of an earlier release records one at its first update, and shows no change for it.
    expect(diffConfig({ ...ok }, checkConfig({ ...ok }, {}, undefined, { ...ok }).inputs)).toEqual({ changes: false, diffs: [] });
    expect(configuredStackIdentity(later.inputs)).toBe(first);
    expect(configuredStackIdentity({ ...ok })).toBeUndefined();
  });

  it("refuses a key without a service address, naming baseUrl", () => {
    expect(checkConfig({ apiKey: secret("rb_key_0123456789") }, {}).failures).toEqual([{ property: "", reason: expect.stringMatching(/no service address/) }]);
  });

  it("leaves the engine's own provider inputs (version) alone", () => {
    const { inputs, failures } = checkConfig({ ...ok, version: "0.1.0" }, {});
    expect(failures).toEqual([]);
    expect(inputs.version).toBe("0.1.0");
  });
});

describe("CheckConfig refuses before anything is recorded", () => {
  const ok = { apiKey: secret("rb_key_0123456789"), baseUrl: "https://api.example.com/v8" };
  const EXPLICIT = "urn:pulumi:dev::p::pulumi:providers:remote-browser::accountB";
  const DEFAULT = "urn:pulumi:dev::p::pulumi:providers:remote-browser::default_0_1_0";

  it("credentials in baseUrl, without repeating them", () => {
    for (const baseUrl of ["https://user:hunter2-password@api.example.com/v8", "https://only-user-hunter2@api.example.com/v8"]) {
      const { failures } = checkConfig({ ...ok, baseUrl }, {}, EXPLICIT);
      expect(failures).toEqual([{ property: "", reason: expect.stringMatching(/the provider's baseUrl .*carries a user name or password/) }]);
      expect(JSON.stringify(failures)).not.toMatch(/hunter2/);
    }
  });

  it("a plain-HTTP baseUrl to another machine when a key is set (loopback stays allowed)", () => {
    const { failures } = checkConfig({ ...ok, baseUrl: "http://api.example.com/v8" }, {});
    expect(failures).toEqual([{ property: "", reason: expect.stringMatching(/plain http:\/\/ to a host other than this machine.*use https:\/\//) }]);
    expect(checkConfig({ ...ok, baseUrl: "http://127.0.0.1:8788/v8" }, {}).failures).toEqual([]);
    expect(checkConfig({ baseUrl: "http://catalog.example.com/v8" }, {}).failures).toEqual([]);
  });

  it("an apiKey that is a number or an object, never sent as its text", () => {
    for (const apiKey of [12345, { key: "rb_in_an_object" }, ["rb_in_a_list"]]) {
      const { failures } = checkConfig({ ...ok, apiKey }, {});
      expect(failures).toEqual([{ property: "", reason: expect.stringMatching(/remote-browser:apiKey must be a string, got an? (number|object|list)/) }]);
      expect(JSON.stringify(failures)).not.toMatch(/rb_in_/);
    }
  });

  it("a value longer than any real one (a 5 MB idempotencySecret), by its length alone", () => {
    const huge = "s".repeat(5 * 1024 * 1024);
    const { failures } = checkConfig({ ...ok, idempotencySecret: secret(huge) }, {});
    expect(failures).toEqual([{ property: "", reason: expect.stringMatching(/is 5242880 characters long; a value may have at most 4096/) }]);
    expect(JSON.stringify(failures).length).toBeLessThan(400);
  });

  it("names the explicit provider's property, the default provider's stack key", () => {
    expect(checkConfig({ ...ok, waitForCapacitySeconds: 7200 }, {}, EXPLICIT).failures[0]!.reason).toMatch(/^the provider's waitForCapacitySeconds must be/);
    expect(checkConfig({ ...ok, waitForCapacitySeconds: 7200 }, {}, DEFAULT).failures[0]!.reason).toMatch(/^remote-browser:waitForCapacitySeconds must be/);
  });

  it("never repeats a wrong apiVersion or a non-number of seconds: it may be a pasted key", () => {
    const pasted = "rb_live_pasted_key_0123456789";
    for (const property of ["apiVersion", "waitForCapacitySeconds", "requestTimeoutSeconds"]) {
      const { failures } = checkConfig({ ...ok, [property]: pasted }, {});
      expect(failures).toEqual([{ property: "", reason: expect.stringContaining(property) }]);
      expect(JSON.stringify(failures)).not.toContain(pasted);
    }
  });

  it("refuses a misspelt credential (the provider would ignore it), warns of any other unknown key, and leaves the engine's inputs alone", () => {
    const { failures, warnings } = checkConfig({ ...ok, apikey: "rb_plain_typo_0123", colour: "blue", version: "0.1.0", pluginDownloadURL: "https://x" }, {}, DEFAULT);
    expect(failures).toEqual([
      {
        property: "",
        reason: expect.stringMatching(
          /remote-browser:apikey is not a setting but a misspelling of apiKey.*`pulumi config rm remote-browser:apikey`.*`pulumi config set --secret remote-browser:apiKey`/,
        ),
      },
    ]);
    expect(warnings).toEqual([expect.stringMatching(/^remote-browser:colour is not a setting of the remote-browser provider and is ignored/)]);
    expect(JSON.stringify({ failures, warnings })).not.toContain("rb_plain_typo");
  });
});

describe("a credential in the project's config (Pulumi.yaml)", () => {
  it("is found in either form and any spelling, only in the config block, and named without its value", () => {
    const text = [
      "name: review",
      "runtime: yaml",
      "description: apiKey is mentioned here",
      "config:",
      "  remote-browser:apiKey:",
      "    value: rb_live_in_the_project_0123",
      "  remote-browser:api_key: rb_live_typo_0123",
      "  'remote-browser:idempotencySecret': 0123456789abcdef0123",
      "  remote-browser:baseUrl: https://api.example.com/v8",
      "  other:apiKey: not ours",
      "  app:settings:",
      "    remote-browser:apiKey: a field of another key's object, not a config key",
      "resources:",
      "  remote-browser:apiKey: not config",
    ].join("\n");
    expect(credentialsIn(text)).toEqual(["remote-browser:apiKey", "remote-browser:api_key", "remote-browser:idempotencySecret"]);
    expect(credentialsIn("name: p\nruntime: yaml\nconfig:\n  remote-browser:baseUrl: https://x\n")).toEqual([]);
    expect(credentialsIn("")).toEqual([]);
    const warning = projectCredentialWarning("remote-browser:api_key");
    expect(warning).toMatch(/^remote-browser:api_key is set in the project's config .*usually committed.*`pulumi config set --secret remote-browser:apiKey`/);
    expect(warning).not.toContain("rb_live");
  });
});

describe("a credential written as plain stack config", () => {
  it("is found in the stack's config file in every spelling, and a secret one is not", () => {
    const text = [
      "config:",
      "  remote-browser:apiKey: rb_plain_0123456789",
      '  remote-browser:config:idempotencySecret: "0123456789abcdef0123"',
      "  remote-browser:baseUrl: https://api.example.com/v8",
      "  'remote-browser:apikey': typo",
      "  other:apiKey: not-ours",
      "  remote-browser:idempotencySecret:",
      "    secure: v1:abc",
      "  remote-browser:api_key: { secure: v1:def }",
    ].join("\n");
    expect(credentialsIn(text)).toEqual(["remote-browser:apiKey", "remote-browser:config:idempotencySecret", "remote-browser:apikey"]);
  });

  it("is found with its value on the next, more indented line, and in a flow mapping, in either file", () => {
    const nextLine = ["config:", "  remote-browser:apiKey:", "    rb_plain_on_the_next_line", "  remote-browser:idempotencySecret:", "    secure: v1:abc"].join("\n");
    expect(credentialsIn(nextLine)).toEqual(["remote-browser:apiKey"]);
    expect(credentialsIn(`name: p\nruntime: yaml\n${nextLine}\n`)).toEqual(["remote-browser:apiKey"]);
    const flow = "config: {remote-browser:apiKey: rb_plain_flow, 'remote-browser:idempotencySecret': {secure: v1:abc}, remote-browser:baseUrl: https://x}";
    expect(credentialsIn(flow)).toEqual(["remote-browser:apiKey"]);
    expect(credentialsIn(`name: p\nruntime: yaml\n${flow}\n`)).toEqual(["remote-browser:apiKey"]);
    // Over several lines, and JSON-like.
    expect(credentialsIn('config: {\n  "remote-browser:apiKey": "rb_plain",\n  "app:x": {"a": 1}\n}\n')).toEqual(["remote-browser:apiKey"]);
    expect(credentialsIn("name: p\nconfig: {remote-browser:apiKey: {value: rb_plain}}\n")).toEqual(["remote-browser:apiKey"]);
  });

  it("is warned about with the command that fixes it, never its value", () => {
    expect(plainCredentialWarning("remote-browser:apiKey")).toMatch(/stored in clear text in the stack's config file, Pulumi.<stack>.yaml .*`pulumi config set --secret remote-browser:apiKey`/);
    expect(plainCredentialWarning("remote-browser:config:apiKey")).toMatch(/`pulumi config set --secret remote-browser:apiKey` \(and `pulumi config rm remote-browser:config:apiKey`/);
  });
});

describe("DiffConfig", () => {
  it("names the settings that changed, and none when nothing did (secrets compared by value)", () => {
    expect(diffConfig({ apiKey: secret("a"), baseUrl: "x" }, { apiKey: secret("a"), baseUrl: "x" })).toEqual({ changes: false, diffs: [] });
    expect(diffConfig({ apiKey: secret("a"), baseUrl: "x" }, { apiKey: secret("b"), baseUrl: "x" })).toEqual({ changes: true, diffs: ["apiKey"] });
  });
});

describe("Configure's settings", () => {
  it("reads the provider's inputs first, then the stack config's variables, secrets unwrapped", () => {
    const get = settingsFrom(
      { apiKey: secret("from-args"), waitForCapacitySeconds: 12 },
      new Map([
        ["remote-browser:baseUrl", "https://v.example.com"],
        ["remote-browser:apiKey", "from-vars"],
      ]),
    );
    expect(get("apiKey")).toBe("from-args");
    expect(get("waitForCapacitySeconds")).toBe("12");
    expect(get("baseUrl")).toBe("https://v.example.com");
    expect(get("apiVersion")).toBeUndefined();
  });
});
