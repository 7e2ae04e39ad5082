import type { Emulator, EmulatorOptions } from "../../emulator";
import { startEmulator } from "../../emulator";
import { eventually } from "../helpers/eventually";
/* eslint-disable @typescript-eslint/no-explicit-any -- the emulator's JSON answers, read field by field as the API's spec writes them */

export interface Answer {
  http: number;
  body: Record<string, any>;
  headers: Headers;
  text: string;
}

export interface CallOptions {
  /** JSON-encoded unless `raw` is given. */
  body?: unknown;
  /** Sent as is, with the content type below. */
  raw?: string;
  contentType?: string;
  /** API key; null sends no Authorization header. Defaults to the default account's key. */
  key?: string | null;
  headers?: Record<string, string>;
}

export interface Harness {
  emu: Emulator;
  call(method: string, path: string, opts?: CallOptions): Promise<Answer>;
  get(path: string, opts?: CallOptions): Promise<Answer>;
  post(path: string, body?: unknown, opts?: CallOptions): Promise<Answer>;
  /** POST /v8/vm/create with a chrome default. */
  create(fields?: Record<string, unknown>, opts?: CallOptions): Promise<Answer>;
  status(vmId: string, opts?: CallOptions): Promise<string | undefined>;
  page(url: string): Promise<{ http: number; html: string; headers: Headers }>;
}

export async function startHarness(opts: EmulatorOptions = {}): Promise<Harness> {
  const emu = await startEmulator({ prepMs: 40, prepJitterMs: 0, ...opts });
  const call = async (method: string, path: string, o: CallOptions = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...o.headers };
    const key = o.key === undefined ? emu.apiKey : o.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body: string | undefined;
    if (o.raw !== undefined) body = o.raw;
    else if (o.body !== undefined) body = JSON.stringify(o.body);
    if (body !== undefined) headers["content-type"] = o.contentType ?? "application/json";
    const res = await fetch(emu.origin + path, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    let parsed: Record<string, any>;
    try {
      parsed = JSON.parse(text) as Record<string, any>;
    } catch {
      parsed = {};
    }
    return { http: res.status, body: parsed, headers: res.headers, text };
  };
  const harness: Harness = {
    emu,
    call,
    get: (path, o) => call("GET", path, o),
    post: (path, body, o) => call("POST", path, { ...o, body }),
    create: (fields = {}, o) => call("POST", "/v8/vm/create", { ...o, body: { browser: "chrome", ...fields } }),
    async status(vmId, o) {
      const a = await call("GET", `/v8/vm/data?id=${encodeURIComponent(vmId)}`, o);
      return a.body.data?.[0]?.status as string | undefined;
    },
    async page(url) {
      const res = await fetch(url, { redirect: "manual" });
      return { http: res.status, html: await res.text(), headers: res.headers };
    },
  };
  return harness;
}

export function waitForStatus(h: Harness, vmId: string, status: string, timeoutMs = 20_000): Promise<true> {
  return eventually(async () => (await h.status(vmId)) === status || undefined, timeoutMs) as Promise<true>;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
