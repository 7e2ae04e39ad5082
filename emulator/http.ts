import type { IncomingMessage, ServerResponse } from "node:http";
import type { JsonObject } from "./types";

export type BodyResult = { kind: "ok"; text: string } | { kind: "too_large" } | { kind: "aborted" };

/** Past this much, an oversized body is not drained any more: the connection is cut instead. */
const DRAIN_LIMIT = 8 * 1024 * 1024;

/**
 * Reads the request body up to `maxBytes`. An oversized body is still drained (up to a hard cap)
 * so the client is reading by the time the refusal arrives instead of hitting a reset mid-upload.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: BodyResult) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else chunks.length = 0;
      if (size > DRAIN_LIMIT) {
        req.socket.destroy();
        settle({ kind: "aborted" });
      }
    });
    req.on("end", () => settle(size > maxBytes ? { kind: "too_large" } : { kind: "ok", text: Buffer.concat(chunks).toString("utf8") }));
    req.on("error", () => settle({ kind: "aborted" }));
    req.on("close", () => settle({ kind: "aborted" }));
  });
}

export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(";")[0]!.trim().toLowerCase() === "application/json";
}

export type ParsedBody = { ok: true; value: JsonObject } | { ok: false; message: string };

export function parseJsonObject(text: string): ParsedBody {
  if (text.trim() === "") return { ok: false, message: "request body is empty; send a JSON object" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, message: "request body is not valid JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const got = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    return { ok: false, message: `request body must be a JSON object, got ${got}` };
  }
  return { ok: true, value: value as JsonObject };
}

const COMMON_HEADERS = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
};

export function sendJson(res: ServerResponse, httpStatus: number, body: unknown, headers: Record<string, string> = {}): void {
  sendText(res, httpStatus, typeof body === "string" ? body : JSON.stringify(body), "application/json; charset=utf-8", headers);
}

export function sendText(res: ServerResponse, httpStatus: number, text: string, contentType: string, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(httpStatus, {
    ...COMMON_HEADERS,
    "content-type": contentType,
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** Bearer token of the request, or undefined when the header is missing or of another scheme. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : undefined;
}

export function delay(ms: number, timers: Set<NodeJS.Timeout>): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      timers.delete(t);
      resolve();
    }, ms);
    timers.add(t);
  });
}
