import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

// The proxy rewrites the service's answers, untyped JSON, in place.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an answer of the service as JSON, any of its fields rewritten
export type Json = Record<string, any>;

/** What a rewrite knows of the request: its path, the Authorization it presented ("" for none) and its JSON body. */
export interface Relayed {
  path: string;
  presented: string;
  body: Record<string, unknown>;
}

export type Rewrite = (answer: Json, request: Relayed) => void;

/**
 * A loopback HTTP proxy before the service at `apiBaseUrl` (the emulator's) that relays every request with
 * its Authorization and passes every successful answer (`status: "ok"`) through `rewrite` first: a service,
 * or a proxy before it, whose answers repeat what the request presented, so that tests can prove that such
 * text is scrubbed. Returns its v8 base URL and its server, which the caller closes.
 */
export async function startEchoingProxy(apiBaseUrl: string, rewrite: Rewrite): Promise<{ baseUrl: string; server: Server }> {
  const upstreamOrigin = new URL(apiBaseUrl).origin;
  const server = createServer((req, res) => void relay(req, res).catch((e: Error) => res.destroy(e)));
  async function relay(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (req.headers.authorization) headers.authorization = req.headers.authorization;
    const upstream = await fetch(`${upstreamOrigin}${req.url}`, { method: req.method, headers, body: text || undefined });
    const answer = (await upstream.json()) as Json;
    if (answer.status === "ok") rewrite(answer, { path: req.url!, presented: req.headers.authorization ?? "", body: text ? JSON.parse(text) : {} });
    res.writeHead(upstream.status, { "content-type": "application/json" }).end(JSON.stringify(answer));
  }
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v8`, server };
}
