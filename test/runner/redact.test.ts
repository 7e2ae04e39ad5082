import { describe, expect, it } from "vitest";
import { CommandError } from "@pulumi/pulumi/automation";
import { generationKey, keyAfter } from "../../core/launch";
import { credentialsOf, redactError, redactor, secretsOfEnvironment } from "../../runner/redact";
/* eslint-disable @typescript-eslint/no-explicit-any -- the Automation API's error, whose commandResult its type does not declare */

const KEY = "rb_test_0123456789abcdef0123456789abcdef";
const URL_WITH_PASSWORD = "postgres://pulumi:s3cr%40t-pass@db.example.test:5432/pulumi?sslmode=disable";

describe("redaction of what the runner passes on", () => {
  it("removes a backend URL's password, as written and decoded, also from other URLs' user info", () => {
    const redact = redactor(credentialsOf(URL_WITH_PASSWORD));
    const text = `connecting to ${URL_WITH_PASSWORD} failed; password s3cr@t-pass rejected; also https://u:other-pass@x.test/`;
    const out = redact(text);
    expect(out).not.toContain("s3cr%40t-pass");
    expect(out).not.toContain("s3cr@t-pass");
    expect(out).not.toContain("other-pass");
    expect(out).toContain("postgres://pulumi:[secret]@db.example.test:5432/pulumi");
    // URLs without a password are left alone.
    expect(redact("http://127.0.0.1:8080/v8 and postgres://pulumi@127.0.0.1:5432/db")).toBe("http://127.0.0.1:8080/v8 and postgres://pulumi@127.0.0.1:5432/db");
    expect(credentialsOf("postgres://pulumi@127.0.0.1/db")).toEqual([]);
    expect(credentialsOf(undefined)).toEqual([]);
  });

  it("removes a password given in a URL's query or a connection string (password=, sslpassword=, ...), as written and decoded", () => {
    const url = "postgres://pulumi@db.example.test:5432/pulumi?sslmode=require&password=s3cr%40t-query&sslpassword=ssl-pass-123";
    expect(credentialsOf(url)).toEqual(["s3cr%40t-query", "s3cr@t-query", "ssl-pass-123"]);
    const redact = redactor(credentialsOf(url));
    const out = redact(`error: connecting to ${url}: password s3cr@t-query rejected; host=db password=other-pass-9 dbname=x`);
    for (const secret of ["s3cr%40t-query", "s3cr@t-query", "ssl-pass-123", "other-pass-9"]) expect(out).not.toContain(secret);
    expect(out).toContain("?sslmode=require&password=[secret]&sslpassword=[secret]");
    // The same patterns without any known secret: a URL from the engine's own output.
    expect(redactor([])("dial postgres://u@h/db?PASSWORD=abc123xyz&x=1")).toBe("dial postgres://u@h/db?PASSWORD=[secret]&x=1");
    expect(credentialsOf("postgres://pulumi@127.0.0.1/db?sslmode=disable")).toEqual([]);
  });

  it("removes a password holding an unencoded @ whole, as URL parsers read it (up to the last @ before the path)", () => {
    const url = "postgres://user:pa@ss-tail@db.example.test/pulumi";
    expect(credentialsOf(url)).toContain("pa@ss-tail");
    const out = redactor(credentialsOf(url))(`opening ${url}; and mysql://u:x@y-tail@other.test/db`);
    expect(out).toBe("opening postgres://user:[secret]@db.example.test/pulumi; and mysql://u:[secret]@other.test/db");
  });

  it("removes a secret holding a quote or a backslash in its JSON-escaped forms too (events, quoted messages)", () => {
    const secret = 'pa"ss\\word-1';
    const redact = redactor([secret]);
    const once = JSON.stringify({ value: secret });
    const twice = JSON.stringify({ message: once });
    for (const text of [secret, once, twice]) expect(redact(text), text).not.toMatch(/ss.{0,6}word-1/);
  });

  it("removes share links whose id holds +, / or =, or is given as s?id=", () => {
    const redact = redactor([]);
    for (const link of ["https://share.example.test/de/s?Ab+cD/ef=gh12", "https://share.example.test/en/s?id=Zx9_Yw8-Vu7", "/fr/s?id=AbC+dEf/GhI=="]) {
      const out = redact(`link: ${link} end`);
      expect(out, link).toMatch(/\/s\?(id=)?\[secret\] end$/);
    }
  });

  it("redacts an Automation API CommandError everywhere: message, stack, and the transcript in commandResult", () => {
    const transcript = { stdout: `config: apiKey=${KEY}`, stderr: `error: ${URL_WITH_PASSWORD} unreachable (${KEY})`, code: 255 };
    const inner = new Error(`spawn failed for ${KEY}`);
    // The Automation API builds these from a CommandResult; its constructor is internal, so one is shaped here.
    const err = new CommandError({ ...transcript, err: inner, toString: () => `stdout: ${transcript.stdout}\nstderr: ${transcript.stderr}` } as never);
    (err as unknown as { cause: unknown }).cause = new Error(`cause with ${KEY}`);
    const redact = redactor([KEY, ...credentialsOf(URL_WITH_PASSWORD)]);
    const out = redactError(err, redact) as CommandError & { cause: Error };
    expect(out).toBe(err);
    expect(out).toBeInstanceOf(CommandError);
    const seen = JSON.stringify({
      message: out.message,
      stack: out.stack,
      stdout: (out as any).commandResult.stdout,
      stderr: (out as any).commandResult.stderr,
      err: [(out as any).commandResult.err.message, (out as any).commandResult.err.stack],
      cause: [out.cause.message, out.cause.stack],
    });
    expect(seen).not.toContain(KEY);
    expect(seen).not.toContain("s3cr%40t-pass");
    expect(seen).toContain("[secret]");
  });

  it("removes derived idempotency keys however the engine prints them: property maps, JSON, escaped JSON, events", () => {
    const key = generationKey({ seed: "urn:pulumi:dev::e2e::remote-browser:index:BrowserSession::pr", inputs: { browser: "chrome" } });
    const next = keyAfter(key, "vm-1");
    const keyed = generationKey({ seed: "seed", previousKey: key, inputs: { browser: "firefox" }, stackSecret: "a-stack-secret-of-16+" });
    const texts = [
      // -v=9: the engine's log of a create's outputs, before it marks them secret.
      `I0101 provider.go:1234] Create outputs: map[__idempotencyKey:{${key}} vmId:{vm-1}]`,
      `RegisterResource(...): __idempotencyKey={${next}},vmId={vm-1}`,
      JSON.stringify({ outputs: { __idempotencyKey: keyed } }),
      JSON.stringify(JSON.stringify({ __idempotencyKey: key })),
      JSON.stringify({ diagnosticEvent: { message: `adopted the session started under ${key}`, severity: "debug" } }),
    ];
    const redact = redactor([]);
    for (const text of texts) {
      const out = redact(text);
      for (const k of [key, next, keyed]) expect(out, text).not.toContain(k.slice(4));
      expect(out, text).toContain("prb-[secret]");
    }
    // What is not a derived key stays: a vmId, a short prb- word, a user's own idempotency key.
    expect(redact("vm-1 prb-abc my-own-key-123")).toBe("vm-1 prb-abc my-own-key-123");
  });

  it("removes a Pulumi access token, by shape and by the value of any secret-named variable of the environment", () => {
    const token = `pul-${"0123456789abcdef".repeat(2)}01234567`;
    expect(redactor([])(`Authorization: [token ${token}]`)).toBe("Authorization: [token pul-[secret]]");
    const env = { PULUMI_ACCESS_TOKEN: "an-odd-token-from-a-self-hosted-cloud", REMOTE_BROWSER_IDEMPOTENCY_SECRET: "0123456789abcdef", PATH: "/usr/bin", EMPTY_KEY: "" };
    expect(secretsOfEnvironment(env).sort()).toEqual(["0123456789abcdef", "an-odd-token-from-a-self-hosted-cloud"]);
    expect(redactor(secretsOfEnvironment(env))("headers=map[Authorization:[token an-odd-token-from-a-self-hosted-cloud]]")).toBe("headers=map[Authorization:[token [secret]]]");
  });
});
