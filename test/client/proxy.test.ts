/**
 * The transport and the proxy the environment names, through a real proxy on loopback.
 *
 * The proxy below answers CONNECT only, as a corporate egress proxy does for https. It knows one outside
 * name, api.remote-browser.test (which no resolver knows, so a call that reaches the emulator under that
 * name can only have come through the proxy): port 443 leads to a TLS front that forwards to the emulator,
 * any other port straight to the emulator's port. Everything else it refuses, so a call that should not
 * have gone through it fails as well as showing in its log.
 */
import * as fs from "node:fs";
import { createServer } from "node:http";
import type { IncomingMessage, Server } from "node:http";
import * as net from "node:net";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import * as tls from "node:tls";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { RemoteBrowserClient, defaultDispatcher } from "../../client";
import { thrown, useEmulator } from "../helpers/emulator";

// The calls arrive under the test host name, which the emulator serves only when told to.
const t = useEmulator({ allowRemote: true });

const HOST = "api.remote-browser.test";
const fixtures = path.join(__dirname, "..", "fixtures", "tls");
// A self-signed certificate for HOST made for this test only (its key guards nothing else).
const cert = fs.readFileSync(path.join(fixtures, `${HOST}.crt`), "utf8");
const key = fs.readFileSync(path.join(fixtures, `${HOST}.key`), "utf8");

interface Proxy {
  port: number;
  url: string;
  /** Request lines it received: `CONNECT host:port`, or the method and target of anything else. */
  seen: string[];
  /** Proxy-Authorization headers it received. */
  credentials: (string | undefined)[];
  /** Every byte the client sent through its tunnels. */
  tunnelled: () => string;
  close: () => Promise<void>;
}

let tlsFront: tls.Server;
let tlsPort = 0;
const frontSockets = new Set<tls.TLSSocket>();

beforeAll(async () => {
  // Terminates TLS for HOST and hands the plain bytes to the emulator of the running test.
  tlsFront = tls.createServer({ key, cert }, (socket) => {
    frontSockets.add(socket);
    socket.on("close", () => frontSockets.delete(socket));
    const upstream = net.connect(emulatorPort(), "127.0.0.1");
    socket.pipe(upstream).pipe(socket);
    socket.on("error", () => upstream.destroy());
    upstream.on("error", () => socket.destroy());
  });
  await new Promise<void>((resolve) => tlsFront.listen(0, "127.0.0.1", resolve));
  tlsPort = (tlsFront.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const socket of frontSockets) socket.destroy();
  await new Promise<void>((resolve) => tlsFront.close(() => resolve()));
});

const emulatorPort = () => Number(new URL(t.emu.origin).port);

async function startProxy(): Promise<Proxy> {
  const seen: string[] = [];
  const credentials: (string | undefined)[] = [];
  const chunks: Buffer[] = [];
  const sockets = new Set<net.Socket>();
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(501).end("this proxy only tunnels");
  });
  server.on("connect", (req: IncomingMessage, client: net.Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    credentials.push(req.headers["proxy-authorization"]);
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => client.destroy());
    const [host, port] = (req.url ?? "").split(":");
    if (host !== HOST) {
      client.end("HTTP/1.1 403 Forbidden\r\n\r\n");
      return;
    }
    const upstream = net.connect(port === "443" ? tlsPort : Number(port), "127.0.0.1", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) upstream.write(head);
      client.on("data", (chunk: Buffer) => chunks.push(chunk));
      client.pipe(upstream).pipe(client);
    });
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    seen,
    credentials,
    tunnelled: () => Buffer.concat(chunks).toString("latin1"),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const PROXY_VARIABLES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"];
let savedEnv: Record<string, string | undefined>;
let proxy: Proxy;
const clients: RemoteBrowserClient[] = [];

/** Sets exactly these proxy variables, none of the others. */
function proxyEnv(vars: Partial<Record<(typeof PROXY_VARIABLES)[number], string>>): void {
  for (const name of PROXY_VARIABLES) delete process.env[name];
  Object.assign(process.env, vars);
}

function client(baseUrl: string, dispatcherOptions?: Parameters<typeof defaultDispatcher>[1]): RemoteBrowserClient {
  const c = new RemoteBrowserClient({
    baseUrl,
    apiKey: t.emu.apiKey,
    retry: { maxAttempts: 1 },
    ...(dispatcherOptions ? { dispatcher: defaultDispatcher(new URL(baseUrl), dispatcherOptions) } : {}),
  });
  clients.push(c);
  return c;
}

beforeEach(async () => {
  savedEnv = Object.fromEntries(PROXY_VARIABLES.map((n) => [n, process.env[n]]));
  proxy = await startProxy();
});

afterEach(async () => {
  for (const c of clients.splice(0)) {
    await c.close();
    // A dispatcher given to a client is not the client's to close.
    await (c.transport as unknown as { dispatcher: { close(): Promise<void> } }).dispatcher.close().catch(() => undefined);
  }
  await proxy.close();
  for (const name of PROXY_VARIABLES) {
    if (savedEnv[name] === undefined) delete process.env[name];
    else process.env[name] = savedEnv[name];
  }
});

describe("HTTPS_PROXY", () => {
  it("tunnels https calls to the service through the proxy; the key crosses it only encrypted", async () => {
    proxyEnv({ HTTPS_PROXY: proxy.url });
    // The test's certificate authority is the only thing added; the proxy comes from the environment.
    const c = client(`https://${HOST}/v8`, { requestTls: { ca: cert } });
    expect((await c.quota()).status).toBe("ok");
    expect((await c.account()).contact).toBe("developer@example.test");
    // One tunnel per connection the client opens; each to the service's name, none elsewhere.
    expect(new Set(proxy.seen)).toEqual(new Set([`CONNECT ${HOST}:443`]));
    expect(t.requests("quota").map((r) => r.status)).toEqual(["ok"]);
    expect(t.requests("account")).toHaveLength(1);
    expect(proxy.tunnelled().length).toBeGreaterThan(0);
    expect(proxy.tunnelled()).not.toContain(t.emu.apiKey);
    expect(proxy.tunnelled()).not.toContain("/v8/user/quota");
  });

  it("reads the lower-case https_proxy too, and sends the proxy's credentials to it alone, never into an error", async () => {
    proxyEnv({ https_proxy: `http://ci-user:proxy-s3cret@127.0.0.1:${proxy.port}` });
    const c = client(`https://${HOST}/v8`, { requestTls: { ca: cert } });
    expect((await c.quota()).status).toBe("ok");
    expect(proxy.credentials).toEqual([`Basic ${Buffer.from("ci-user:proxy-s3cret").toString("base64")}`]);

    // A host the proxy refuses: the error names the variable, not its value.
    const refused = client("https://elsewhere.remote-browser.test/v8", { requestTls: { ca: cert } });
    const err = await thrown(() => refused.quota());
    expect(err).toMatchObject({ code: "network", operation: "read quota" });
    expect(err.message).toContain("https://elsewhere.remote-browser.test");
    expect(err.message).toContain("https_proxy is set");
    expect(proxy.seen).toEqual([`CONNECT ${HOST}:443`, "CONNECT elsewhere.remote-browser.test:443"]);
    const everything = JSON.stringify(err, Object.getOwnPropertyNames(err)) + String(err.stack) + String((err as { cause?: unknown }).cause);
    expect(everything).not.toContain("proxy-s3cret");
  });
});

describe("HTTP_PROXY", () => {
  it("carries plain http calls that need no key; a call that needs the key is still refused before sending", async () => {
    proxyEnv({ HTTP_PROXY: proxy.url });
    const c = client(`http://${HOST}:${emulatorPort()}/v8`);
    expect((await c.images()).status).toBe("ok");
    expect(proxy.seen).toEqual([`CONNECT ${HOST}:${emulatorPort()}`]);
    expect(t.requests("image")).toHaveLength(1);

    const err = await thrown(() => c.quota());
    expect(err).toMatchObject({ code: "insecure_transport" });
    expect(proxy.seen).toHaveLength(1);
    expect(t.requests("quota")).toHaveLength(0);
  });

  it("is read in lower case too (http_proxy)", async () => {
    proxyEnv({ http_proxy: proxy.url });
    const c = client(`http://${HOST}:${emulatorPort()}/v8`);
    expect((await c.images()).status).toBe("ok");
    expect(proxy.seen).toEqual([`CONNECT ${HOST}:${emulatorPort()}`]);
  });
});

describe("NO_PROXY", () => {
  // Resolves the outside name to the emulator's address, for calls that go direct.
  const lookup: net.LookupFunction = (hostname, options, callback) => {
    if (hostname !== HOST) return callback(Object.assign(new Error(`unexpected lookup of ${hostname}`), { code: "ENOTFOUND" }), "", 4);
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: "127.0.0.1", family: 4 }]);
    callback(null, "127.0.0.1", 4);
  };

  for (const [name, value] of [
    ["NO_PROXY", HOST],
    ["no_proxy", ".remote-browser.test"],
    ["NO_PROXY", `example.com, ${HOST}`],
  ] as const) {
    it(`sends calls to a host that ${name}=${value} names directly`, async () => {
      proxyEnv({ HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, [name]: value });
      const c = client(`http://${HOST}:${emulatorPort()}/v8`, { connect: { lookup } });
      expect((await c.images()).status).toBe("ok");
      expect(proxy.seen).toEqual([]);
      expect(t.requests("image")).toHaveLength(1);
    });
  }

  it("still proxies a host that NO_PROXY does not name", async () => {
    proxyEnv({ HTTP_PROXY: proxy.url, NO_PROXY: "example.com" });
    const c = client(`http://${HOST}:${emulatorPort()}/v8`, { connect: { lookup } });
    expect((await c.images()).status).toBe("ok");
    expect(proxy.seen).toEqual([`CONNECT ${HOST}:${emulatorPort()}`]);
  });
});

describe("loopback", () => {
  for (const noProxy of [undefined, "example.com"]) {
    it(`is never proxied, by address or by name, with HTTPS_PROXY and HTTP_PROXY set and NO_PROXY ${noProxy ?? "unset"}`, async () => {
      proxyEnv({ HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url, ...(noProxy ? { NO_PROXY: noProxy } : {}) });
      expect((await client(t.emu.apiBaseUrl).quota()).status).toBe("ok");
      expect((await client(t.emu.apiBaseUrl.replace("127.0.0.1", "localhost")).account()).contact).toBe("developer@example.test");
      expect(proxy.seen).toEqual([]);
      expect(t.requests("quota")).toHaveLength(1);
      expect(t.requests("account")).toHaveLength(1);
    });
  }
});
