import type { IncomingMessage, ServerResponse } from "node:http";
import type { EmulatorControl } from "./control";
import { EmulatorControlError } from "./control";
import { isJsonContentType, parseJsonObject, readBody, sendJson } from "./http";
import { openApiDocument } from "./openapi";
import type { SessionStatus } from "./types";

export const CONTROL_PREFIX = "/_emulator";

type ControlRoute = {
  method: string;
  pattern: RegExp;
  run(control: EmulatorControl, body: Record<string, unknown>, params: string[]): unknown;
};

const ok = { status: "ok" };

const ROUTES: ControlRoute[] = [
  { method: "GET", pattern: /^\/sessions$/, run: (c) => ({ sessions: c.sessions() }) },
  { method: "POST", pattern: /^\/sessions$/, run: (c, body) => ({ session: c.seedSession(body as never) }) },
  { method: "GET", pattern: /^\/books$/, run: (c) => c.books() },
  { method: "GET", pattern: /^\/requests$/, run: (c) => c.requests() },
  { method: "DELETE", pattern: /^\/requests$/, run: (c) => (c.clearRequests(), ok) },
  { method: "GET", pattern: /^\/settings$/, run: (c) => c.settings() },
  { method: "POST", pattern: /^\/settings$/, run: (c, body) => c.settings(body) },
  { method: "GET", pattern: /^\/faults$/, run: (c) => ({ faults: c.faults() }) },
  { method: "POST", pattern: /^\/faults$/, run: (c, body) => ({ fault: c.fault(body as never), faults: c.faults() }) },
  { method: "DELETE", pattern: /^\/faults$/, run: (c) => (c.clearFaults(), ok) },
  { method: "POST", pattern: /^\/preparation$/, run: (c, body) => c.preparation(body) },
  { method: "POST", pattern: /^\/sessions\/([^/]+)\/end$/, run: (c, _b, [id]) => ({ session: c.endSession(id!) }) },
  {
    method: "POST",
    pattern: /^\/sessions\/([^/]+)\/state$/,
    run: (c, body, [id]) => {
      const keys = Object.keys(body);
      const unknown = keys.find((k) => k !== "status" && k !== "created");
      if (unknown) throw new EmulatorControlError(`${unknown}: unknown field`, "EMULATOR_CONTROL_INVALID");
      if (body.status === undefined && body.created === undefined) {
        throw new EmulatorControlError("status or created: one is required", "EMULATOR_CONTROL_INVALID");
      }
      let view = body.created !== undefined ? c.setCreated(id!, body.created as string) : undefined;
      if (body.status !== undefined) view = c.setState(id!, body.status as SessionStatus);
      return { session: view };
    },
  },
  { method: "POST", pattern: /^\/accounts$/, run: (c, body) => c.addAccount(body as never) },
  { method: "POST", pattern: /^\/accounts\/([^/]+)$/, run: (c, body, [id]) => c.updateAccount(id!, body as never) },
  { method: "POST", pattern: /^\/reset$/, run: (c) => (c.reset(), ok) },
  { method: "GET", pattern: /^\/openapi\.json$/, run: () => openApiDocument },
];

/** The test-only surface: no key, not part of the emulated API, never in the request log. */
export async function handleControl(control: EmulatorControl, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  const sub = path.slice(CONTROL_PREFIX.length) || "/";
  const candidates = ROUTES.filter((r) => r.pattern.test(sub));
  if (candidates.length === 0) {
    sendJson(res, 404, { status: "denied", message: `unknown control path ${path}` });
    return;
  }
  const route = candidates.find((r) => r.method === req.method);
  if (!route) {
    const allow = candidates.map((r) => r.method).join(", ");
    sendJson(res, 405, { status: "denied", message: `method ${req.method} not allowed here; use ${allow}` }, { allow });
    return;
  }
  let body: Record<string, unknown> = {};
  if (req.method === "POST") {
    // A web page can send a "simple" cross-origin POST (text/plain, a form) without asking first; a JSON
    // one needs a preflight the emulator never grants. So JSON only, also for POSTs without a body.
    if (!isJsonContentType(req.headers["content-type"])) {
      sendJson(res, 415, { status: "denied", message: "control requests must be JSON; send Content-Type: application/json" });
      return;
    }
    const read = await readBody(req, 1024 * 1024);
    if (read.kind !== "ok") {
      sendJson(res, 413, { status: "denied", message: "control request body too large" });
      return;
    }
    if (read.text.trim() !== "") {
      const parsed = parseJsonObject(read.text);
      if (!parsed.ok) {
        sendJson(res, 400, { status: "denied", message: parsed.message });
        return;
      }
      body = parsed.value;
    }
  }
  try {
    const params = (route.pattern.exec(sub) ?? []).slice(1).map(decodeParam);
    sendJson(res, 200, route.run(control, body, params));
  } catch (err) {
    if (err instanceof EmulatorControlError) {
      sendJson(res, err.code === "EMULATOR_CONTROL_NOT_FOUND" ? 404 : 400, { status: "denied", message: err.message });
      return;
    }
    throw err;
  }
}

function decodeParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new EmulatorControlError("malformed path segment", "EMULATOR_CONTROL_INVALID");
  }
}
