import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openApiDocument } from "../../emulator/openapi";
import type { Answer, CallOptions, Harness } from "./harness";
import { startHarness, waitForStatus } from "./harness";
/* eslint-disable @typescript-eslint/no-explicit-any -- the OpenAPI document, walked as JSON */

const DOC_ID = "urn:remote-browser:openapi";
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
// The document root is not a schema; its schemas are reached through "#/components/schemas/...".
ajv.addKeyword("components");
ajv.addSchema({ $id: DOC_ID, components: openApiDocument.components });

type Method = "get" | "post";
const validators = new Map<string, ReturnType<typeof ajv.compile>>();
const seen = new Set<string>();

function responseSchema(path: string, method: Method, code: number): unknown {
  const op = (openApiDocument.paths as any)[path]?.[method];
  const schema = op?.responses?.[String(code)]?.content?.["application/json"]?.schema;
  if (!schema) throw new Error(`the document has no ${code} answer for ${method.toUpperCase()} ${path}`);
  return schema;
}

function check(path: string, method: Method, a: Answer): void {
  const id = `${method} ${path} ${a.http}`;
  let validate = validators.get(id);
  if (!validate) {
    // Rebase the document's local refs onto the registered document.
    const schema = JSON.parse(JSON.stringify(responseSchema(path, method, a.http)).replaceAll('"#/components/', `"${DOC_ID}#/components/`));
    validate = ajv.compile(schema);
    validators.set(id, validate);
  }
  const valid = validate(a.body);
  if (!valid) throw new Error(`${id} answer does not match the document: ${ajv.errorsText(validate.errors)}\n${a.text}`);
  seen.add(`${id} ${a.body.status}`);
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ runningLimit: 2, cycleLimit: null });
  h.emu.control.addAccount({ apiKey: "rb_oa_no_access", programmaticAccess: false });
  h.emu.control.addAccount({ apiKey: "rb_oa_credits", v7Plan: "credits", credits: 1 });
  h.emu.control.addAccount({ apiKey: "rb_oa_unlimited", v7Plan: "credits", credits: null });
});
afterAll(() => h.emu.close());
beforeEach(() => h.emu.control.reset());

async function drive(method: Method, path: string, opts: CallOptions & { query?: string } = {}): Promise<Answer> {
  const a = await h.call(method.toUpperCase(), path + (opts.query ?? ""), opts);
  check(path, method, a);
  return a;
}

describe("OpenAPI document", () => {
  it("is an OpenAPI 3.1 document with bearer security and an open image endpoint", () => {
    expect(openApiDocument.openapi).toBe("3.1.0");
    expect(openApiDocument.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(openApiDocument.paths["/v8/image"].get.security).toEqual([]);
    expect(Object.keys(openApiDocument.paths).sort()).toEqual(
      ["/v7/user/api", "/v7/user/quota", "/v7/vm/create", "/v8/image", "/v8/user/api", "/v8/user/quota", "/v8/vm/create", "/v8/vm/data", "/v8/vm/remove"].sort(),
    );
  });

  it("compiles every response schema of every operation", () => {
    for (const [path, item] of Object.entries(openApiDocument.paths as Record<string, any>)) {
      for (const [method, op] of Object.entries(item as Record<string, any>)) {
        for (const code of Object.keys(op.responses)) {
          expect(() => ajv.compile(JSON.parse(JSON.stringify(responseSchema(path, method as Method, Number(code))).replaceAll('"#/components/', `"${DOC_ID}#/components/`)))).not.toThrow();
        }
      }
    }
  });

  it("describes the ok answers of every v8 endpoint", async () => {
    await drive("get", "/v8/image", { key: null });
    const created = await drive("post", "/v8/vm/create", { body: { browser: "chrome", country: "us-dal", idempotencyKey: "oa" } });
    await drive("post", "/v8/vm/create", { body: { browser: "chrome", country: "us-dal", idempotencyKey: "oa" } });
    h.emu.control.settings({ locationCapacity: { nl: 0 } });
    const unplaced = await drive("post", "/v8/vm/create", { body: { browser: "edge", country: "nl" } });
    expect(unplaced.body.location_applied).toBe(false);
    await waitForStatus(h, created.body.vmId, "running");
    await drive("get", "/v8/vm/data", { query: `?id=${created.body.vmId}` });
    await drive("get", "/v8/vm/data", { query: `?id=${unplaced.body.vmId}` });
    await drive("get", "/v8/vm/data", { query: "?id=vm-unknown" });
    await drive("post", "/v8/vm/remove", { body: { id: created.body.vmId } });
    const list = await drive("get", "/v8/vm/data");
    expect(list.body.data.length).toBe(2);
    await drive("get", "/v8/user/api");
    await drive("get", "/v8/user/quota");
  });

  it("describes the ok answers of every v7 endpoint, in both quota shapes", async () => {
    await drive("post", "/v7/vm/create", { body: { browser: "chrome", country: "de" } });
    await drive("post", "/v7/vm/create", { body: { browser: "chrome" }, key: "rb_oa_credits" });
    await drive("post", "/v7/vm/create", { body: { browser: "chrome" }, key: "rb_oa_unlimited" });
    await drive("get", "/v7/user/api");
    await drive("get", "/v7/user/quota");
  });

  it("describes denied, upgrade, insecure and error answers with HTTP 200", async () => {
    await drive("post", "/v8/vm/create", { body: { browser: "netscape" } });
    await drive("post", "/v8/vm/remove", { body: { id: "vm-unknown" } });
    await drive("post", "/v8/vm/create", { body: { browser: "chrome" } });
    await drive("post", "/v8/vm/create", { body: { browser: "chrome" } });
    const upgrade = await drive("post", "/v8/vm/create", { body: { browser: "chrome" } });
    expect(upgrade.body.status).toBe("upgrade");
    await drive("post", "/v7/vm/create", { body: { browser: "chrome", egress: "residential" } });
    await drive("post", "/v7/vm/create", { body: { browser: "chrome" }, key: "rb_oa_credits" });
    await drive("post", "/v7/vm/create", { body: { browser: "chrome" }, key: "rb_oa_credits" });

    const ops: Array<[Method, string, string, unknown?]> = [
      ["get", "/v8/image", "image"],
      ["post", "/v8/vm/create", "create", { browser: "chrome" }],
      ["get", "/v8/vm/data", "status"],
      ["post", "/v8/vm/remove", "remove", { id: "vm-x" }],
      ["get", "/v8/user/api", "account"],
      ["get", "/v8/user/quota", "quota"],
      ["post", "/v7/vm/create", "v7create", { browser: "chrome" }],
      ["get", "/v7/user/api", "v7account"],
      ["get", "/v7/user/quota", "v7quota"],
    ];
    for (const [method, path, operation, body] of ops) {
      for (const kind of ["error", "insecure", "rate_limited"] as const) {
        h.emu.control.fault({ operation: operation as never, kind });
        const a = await drive(method, path, body ? { body } : {});
        expect(a.body.status).toBe(kind === "error" ? "error" : "insecure");
      }
    }
  });

  it("describes the 401, 403 and 413 refusals", async () => {
    for (const [method, path, body] of [
      ["post", "/v8/vm/create", { browser: "chrome" }],
      ["get", "/v8/vm/data", undefined],
      ["post", "/v8/vm/remove", { id: "x" }],
      ["get", "/v8/user/api", undefined],
      ["get", "/v8/user/quota", undefined],
      ["post", "/v7/vm/create", { browser: "chrome" }],
      ["get", "/v7/user/api", undefined],
      ["get", "/v7/user/quota", undefined],
    ] as Array<[Method, string, unknown]>) {
      const withBody = body ? { body } : {};
      expect((await drive(method, path, { ...withBody, key: null })).http).toBe(401);
      expect((await drive(method, path, { ...withBody, key: "rb_oa_invalid" })).http).toBe(401);
      expect((await drive(method, path, { ...withBody, key: "rb_oa_no_access" })).http).toBe(403);
      if (body) expect((await drive(method, path, { body: { big: "x".repeat(70_000) } })).http).toBe(413);
    }
  });

  it("describes the rate-limit answer of the real limiter", async () => {
    h.emu.control.settings({ rateLimit: 1 });
    await drive("get", "/v8/user/quota");
    const limited = await drive("get", "/v8/user/quota");
    expect(limited.http).toBe(429);
  });

  it("rejects answers that break the document, so the checks above can fail", () => {
    const good = { status: "ok", data: [{ id: "vm-****abcd", status: "running", name: "Google Chrome", created: "2025-01-01T00:00:00.000Z" }] };
    expect(() => check("/v8/vm/data", "get", { http: 200, body: good, headers: new Headers(), text: "" })).not.toThrow();
    const badState = { ...good, data: [{ ...good.data[0], status: "paused" }] };
    expect(() => check("/v8/vm/data", "get", { http: 200, body: badState, headers: new Headers(), text: "" })).toThrow();
    const reasonWithoutFalse = { ...good, data: [{ ...good.data[0], location_applied: true, location_reason: "unavailable" }] };
    expect(() => check("/v8/vm/data", "get", { http: 200, body: reasonWithoutFalse, headers: new Headers(), text: "" })).toThrow();
    const missingMessage = { status: "denied" };
    expect(() => check("/v8/vm/remove", "post", { http: 200, body: missingMessage, headers: new Headers(), text: "" })).toThrow();
  });

  it("has seen every answer status of the document", () => {
    const statuses = new Set([...seen].map((s) => s.split(" ").at(-1)));
    expect([...statuses].sort()).toEqual(["denied", "error", "insecure", "ok", "upgrade"]);
  });
});
