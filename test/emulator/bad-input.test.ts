import { connect } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Answer, Harness } from "./harness";
import { startHarness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ maxBodyBytes: 4096 });
});
afterAll(() => h.emu.close());
beforeEach(() => h.emu.control.reset());

function expectCleanRefusal(a: Answer): void {
  expect(a.headers.get("content-type")).toMatch(/^application\/json/);
  expect(typeof a.body.status).toBe("string");
  expect(a.body.status).not.toBe("ok");
  expect(typeof a.body.message).toBe("string");
  expect(a.text).not.toMatch(/at .*\.(ts|js):\d+/);
  expect(a.text).not.toMatch(/SyntaxError|TypeError|stack/);
}

describe("bad input", () => {
  it("refuses malformed JSON with denied and no stack trace", async () => {
    const a = await h.call("POST", "/v8/vm/create", { raw: '{"browser": "chrome",' });
    expect(a.http).toBe(200);
    expect(a.body.status).toBe("denied");
    expectCleanRefusal(a);
  });

  it("refuses JSON that is not an object", async () => {
    for (const raw of ["[]", '"chrome"', "42", "null", "true"]) {
      const a = await h.call("POST", "/v8/vm/create", { raw });
      expect(a.body.status).toBe("denied");
      expect(a.body.message).toMatch(/JSON object/);
      expectCleanRefusal(a);
    }
  });

  it("refuses an empty body", async () => {
    const a = await h.call("POST", "/v8/vm/remove", { raw: "" });
    expect(a.body.status).toBe("denied");
    expectCleanRefusal(a);
  });

  it("refuses a body that is not declared as JSON", async () => {
    const a = await h.call("POST", "/v8/vm/create", { raw: '{"browser":"chrome"}', contentType: "text/plain" });
    expect(a.body.status).toBe("denied");
    expect(a.body.message).toMatch(/Content-Type/);
    expect(h.emu.control.sessions()).toHaveLength(0);
  });

  it("accepts a JSON content type with a charset parameter", async () => {
    const a = await h.call("POST", "/v8/vm/create", { raw: '{"browser":"chrome"}', contentType: "application/json; charset=utf-8" });
    expect(a.body.status).toBe("ok");
  });

  it("refuses an oversized body with HTTP 413 and status denied", async () => {
    const a = await h.post("/v8/vm/create", { browser: "chrome", url: "x".repeat(5000) });
    expect(a.http).toBe(413);
    expect(a.body.status).toBe("denied");
    expect(a.body.message).toMatch(/too large/);
    expectCleanRefusal(a);
    expect(h.emu.control.sessions()).toHaveLength(0);
  });

  it("keeps serving after an oversized body", async () => {
    await h.post("/v8/vm/create", { browser: "chrome", url: "x".repeat(50_000) });
    expect((await h.create()).body.status).toBe("ok");
  });

  it("answers an unknown path with 404 and a JSON denied naming the path", async () => {
    const a = await h.get("/v8/nothing/here");
    expect(a.http).toBe(404);
    expect(a.body).toEqual({ status: "denied", message: "unknown path /v8/nothing/here" });
  });

  it("answers a wrong method with 405, a JSON denied and an Allow header", async () => {
    const a = await h.call("DELETE", "/v8/vm/create");
    expect(a.http).toBe(405);
    expect(a.body.status).toBe("denied");
    expect(a.headers.get("allow")).toBe("POST");
    const b = await h.post("/v8/image", {});
    expect(b.http).toBe(405);
    expect(b.headers.get("allow")).toBe("GET");
  });

  it("survives strange but valid JSON such as __proto__ keys and deep nesting", async () => {
    const proto = await h.call("POST", "/v8/vm/create", { raw: '{"browser":"chrome","__proto__":{"admin":true}}' });
    expect(proto.body.status).toBe("denied");
    const deep = await h.call("POST", "/v8/vm/create", { raw: `{"browser":${"[".repeat(1000)}${"]".repeat(1000)}}` });
    expect(deep.body.status).toBe("denied");
    expect(deep.body.message).toMatch(/^browser/);
  });

  it("answers a malformed HTTP request with a JSON 400 and keeps serving", async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(h.emu.origin).port), "127.0.0.1");
      let data = "";
      socket.on("data", (d) => (data += d.toString()));
      socket.on("end", () => resolve(data));
      socket.on("error", reject);
      socket.write("THIS IS NOT HTTP\r\n\r\n");
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400/);
    expect(raw).toContain('"status":"denied"');
    expect((await h.get("/v8/image", { key: null })).body.status).toBe("ok");
  });

  it("logs unknown paths as operation unknown", async () => {
    await h.get("/v9/image");
    expect(h.emu.control.requests().at(-1)).toMatchObject({ operation: "unknown", httpStatus: 404, status: "denied" });
  });
});
