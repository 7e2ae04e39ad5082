import type { IncomingMessage, ServerResponse } from "node:http";
import type { Reply } from "./answers";
import { answers } from "./answers";
import * as v7 from "./api-v7";
import type { ApiContext } from "./api-v8";
import * as v8 from "./api-v8";
import type { EmulatorControl } from "./control";
import { CONTROL_PREFIX, handleControl } from "./control-http";
import type { ActiveFault } from "./faults";
import { bearerToken, delay, isJsonContentType, parseJsonObject, readBody, sendJson } from "./http";
import type { EmulatorState } from "./state";
import type { ApiVersion, JsonObject, Operation } from "./types";
import { handleViewer } from "./viewer";

interface Route {
  method: "GET" | "POST";
  path: string;
  version: ApiVersion;
  /** GET /image is the only endpoint without a key. */
  keyed: boolean;
  operation(query: URLSearchParams): Operation;
  handler(ctx: ApiContext): Reply;
}

const op = (name: Operation) => () => name;

export const ROUTES: readonly Route[] = [
  { method: "GET", path: "/v8/image", version: "v8", keyed: false, operation: op("image"), handler: () => v8.image() },
  { method: "POST", path: "/v8/vm/create", version: "v8", keyed: true, operation: op("create"), handler: v8.create },
  {
    method: "GET",
    path: "/v8/vm/data",
    version: "v8",
    keyed: true,
    operation: (q) => (q.has("id") ? "status" : "list"),
    handler: v8.data,
  },
  { method: "POST", path: "/v8/vm/remove", version: "v8", keyed: true, operation: op("remove"), handler: v8.remove },
  { method: "GET", path: "/v8/user/api", version: "v8", keyed: true, operation: op("account"), handler: v8.userApi },
  { method: "GET", path: "/v8/user/quota", version: "v8", keyed: true, operation: op("quota"), handler: v8.userQuota },
  { method: "POST", path: "/v7/vm/create", version: "v7", keyed: true, operation: op("v7create"), handler: v7.v7Create },
  { method: "GET", path: "/v7/user/api", version: "v7", keyed: true, operation: op("v7account"), handler: v7.v7UserApi },
  { method: "GET", path: "/v7/user/quota", version: "v7", keyed: true, operation: op("v7quota"), handler: v7.v7UserQuota },
];

const BEFORE_FAULTS = new Set(["error", "insecure", "rate_limited", "reset", "delay_before", "denied_echo"]);

function splitUrl(url: string): { path: string; query: URLSearchParams } {
  const q = url.indexOf("?");
  return q < 0 ? { path: url, query: new URLSearchParams() } : { path: url.slice(0, q), query: new URLSearchParams(url.slice(q + 1)) };
}

function shown(path: string): string {
  return path.length > 100 ? `${path.slice(0, 100)}...` : path;
}

/** What happened to one request, for the log. */
interface Outcome {
  httpStatus: number;
  status: string | null;
  vmId?: string;
  fault?: string;
}

function send(res: ServerResponse, reply: Reply, state?: EmulatorState, req?: IncomingMessage): Outcome {
  if (state?.latitude && req) reply = state.latitude.reshape(reply, bearerToken(req));
  sendJson(res, reply.httpStatus, reply.raw ?? reply.body, reply.headers);
  const status = typeof reply.body.status === "string" ? reply.body.status : null;
  return { httpStatus: reply.httpStatus, status, ...(reply.vmId ? { vmId: reply.vmId } : {}) };
}

function dropConnection(req: IncomingMessage): Outcome {
  req.socket.destroy();
  return { httpStatus: 0, status: null };
}

function injected(fault: ActiveFault): Reply {
  switch (fault.kind) {
    case "insecure":
      return answers.insecure("suspicious_request", "injected fault: the request was flagged as suspicious");
    case "rate_limited":
      return answers.rateLimited("injected fault: rate limit exceeded; slow down", 1);
    default:
      return answers.error("injected fault");
  }
}

/** A refusal that repeats what the request presented: what the provider must never pass on. */
async function credentialsEchoed(req: IncomingMessage, maxBodyBytes: number): Promise<Reply> {
  const authorization = String(req.headers.authorization ?? "(none)");
  const key = bearerToken(req) ?? "";
  const read = req.method === "POST" ? await readBody(req, maxBodyBytes) : undefined;
  const body = read?.kind === "ok" ? `; request body: ${read.text}` : "";
  return answers.denied(`invalid API key (credentials presented: ${authorization}; key=${encodeURIComponent(key)}${body})`, 401);
}

export function createApiHandler(state: EmulatorState, control: EmulatorControl) {
  const apiRequest = async (req: IncomingMessage, res: ServerResponse, route: Route, query: URLSearchParams): Promise<Outcome> => {
    const operation = route.operation(query);
    state.books.countCall(operation);
    const fault = state.faults.take(operation, bearerToken(req));
    const faultTag = fault ? { fault: fault.kind } : {};

    if (fault && BEFORE_FAULTS.has(fault.kind)) {
      if (fault.kind === "reset") return { ...dropConnection(req), ...faultTag };
      if (fault.kind === "denied_echo") return { ...send(res, await credentialsEchoed(req, state.settings.maxBodyBytes)), ...faultTag };
      if (fault.kind === "delay_before") await delay(fault.delayMs, state.pendingDelays);
      else {
        if (fault.kind === "rate_limited") state.books.countRateLimited();
        return { ...send(res, injected(fault), state, req), ...faultTag };
      }
    }

    const reply = await answer(req, route, query);
    if (reply.httpStatus === 429) state.books.countRateLimited();
    if (fault?.kind === "reset_after") return { ...dropConnection(req), ...faultTag, ...(reply.vmId ? { vmId: reply.vmId } : {}) };
    if (fault?.kind === "delay") await delay(fault.delayMs, state.pendingDelays);
    if (req.socket.destroyed) return { httpStatus: 0, status: null, ...faultTag };
    return { ...send(res, reply, state, req), ...faultTag };
  };

  const answer = async (req: IncomingMessage, route: Route, query: URLSearchParams): Promise<Reply> => {
    const token = bearerToken(req);
    // Buckets are keyed by the presented key (valid or not); keyless calls share one per address.
    const wait = state.rateLimiter.take(token ?? `address:${req.socket.remoteAddress ?? "?"}`);
    if (wait > 0) {
      return answers.rateLimited(`rate limit exceeded: at most ${state.settings.rateLimit} requests per second per key`, wait);
    }

    let account = state.defaultAccount;
    if (route.keyed) {
      if (token === undefined) {
        return withAuthHeader(answers.denied("missing API key; send the header Authorization: Bearer <API key>", 401));
      }
      const found = state.accounts.byApiKey(token);
      if (!found) return withAuthHeader(answers.denied("invalid API key", 401));
      if (!found.programmaticAccess) {
        const message = route.version === "v7" ? "API access not enabled for this account" : "programmatic access is not enabled for this account; enable it in the account's advanced settings";
        return answers.denied(message, 403);
      }
      account = found;
    }

    let body: JsonObject = {};
    if (route.method === "POST") {
      if (!isJsonContentType(req.headers["content-type"])) {
        return answers.denied("request body must be JSON; send Content-Type: application/json");
      }
      const read = await readBody(req, state.settings.maxBodyBytes);
      if (read.kind === "aborted") return answers.denied("request body could not be read");
      if (read.kind === "too_large") {
        return answers.denied(`request body too large; at most ${state.settings.maxBodyBytes} bytes`, 413);
      }
      const parsed = parseJsonObject(read.text);
      if (!parsed.ok) return answers.denied(parsed.message);
      body = parsed.value;
    }
    return route.handler({ state, account, body, query });
  };

  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = Date.now();
    const { path, query } = splitUrl(req.url ?? "/");
    if (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`)) {
      try {
        await handleControl(control, req, res, path);
      } catch (err) {
        process.stderr.write(`emulator: internal error on control ${shown(path)}: ${(err as Error)?.message ?? err}\n`);
        sendJson(res, 500, { status: "error", message: "internal error" });
      }
      return;
    }
    const method = req.method ?? "GET";
    const candidates = ROUTES.filter((r) => r.path === path);
    const route = candidates.find((r) => r.method === method);
    let outcome: Outcome;
    let operation: Operation = "unknown";
    try {
      if (candidates.length === 0) {
        outcome = send(res, { httpStatus: 404, body: { status: "denied", message: `unknown path ${shown(path)}` } });
      } else if (!route) {
        const allow = candidates.map((r) => r.method).join(", ");
        operation = candidates[0]!.operation(query);
        outcome = send(res, {
          httpStatus: 405,
          body: { status: "denied", message: `method ${shown(method)} not allowed for ${path}; use ${allow}` },
          headers: { allow },
        });
      } else {
        operation = route.operation(query);
        outcome = await apiRequest(req, res, route, query);
      }
    } catch (err) {
      // Never a stack trace to the client; one line on stderr for whoever runs the emulator.
      process.stderr.write(`emulator: internal error on ${method} ${shown(path)}: ${(err as Error)?.message ?? err}\n`);
      outcome = send(res, answers.error("internal error"));
    }
    state.books.record({ t: started, method, path: shown(path), operation, ...outcome, durationMs: Date.now() - started });
  };
}

function withAuthHeader(reply: Reply): Reply {
  return { ...reply, headers: { ...reply.headers, "www-authenticate": 'Bearer realm="remote-browser"' } };
}

export function createViewerHandler(state: EmulatorState) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const started = Date.now();
    const raw = req.url ?? "/";
    const q = raw.indexOf("?");
    // The query string is the link id: it never reaches the log.
    const path = shown(q < 0 ? raw : raw.slice(0, q));
    try {
      const result = handleViewer(state, req, res);
      state.books.record({
        t: started,
        method: req.method ?? "GET",
        path,
        operation: "viewer",
        httpStatus: result.httpStatus,
        status: result.screen,
        ...(result.vmId ? { vmId: result.vmId } : {}),
        durationMs: Date.now() - started,
      });
    } catch (err) {
      process.stderr.write(`emulator viewer: internal error: ${(err as Error)?.message ?? err}\n`);
      sendJson(res, 500, { status: "error", message: "internal error" });
    }
  };
}
