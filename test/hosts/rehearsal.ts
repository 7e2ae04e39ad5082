import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as net from "node:net";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { run } from "../../release/run";

/**
 * The endpoints a release is published to, played on loopback for the rehearsal (rehearsal.test.ts): a
 * plain HTTP server over a folder (the GitHub release page the plugin's pluginDownloadURL names, and a
 * PEP 503 simple index for pip), a Verdaccio npm registry, and a bare git repository with the Go module's
 * tag, fetched by Go itself into a GOPROXY folder as the module proxy fetches a tag from GitHub.
 */
const root = path.resolve(__dirname, "..", "..");

/** A server of the files under `dir` by their path, recording each path it served. */
export async function folderServer(dir: string) {
  const served: string[] = [];
  const server = http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    let file = path.join(dir, rel);
    if (!file.startsWith(dir + path.sep) && file !== dir) return void res.writeHead(403).end();
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, "index.html");
    if (!fs.existsSync(file)) return void res.writeHead(404).end();
    served.push(rel);
    // pip reads an index page only when it is served as HTML.
    const type = file.endsWith(".html") ? "text/html" : "application/octet-stream";
    res.writeHead(200, { "content-type": type, "content-length": fs.statSync(file).size });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { url, served, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** A port free on 127.0.0.1 now (Verdaccio prints the port it was given, not the one port 0 got). */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * Verdaccio (scripts/verdaccio.sh) on 127.0.0.1 with its storage and users in `dir`: the release's two
 * packages are published to it and served by it alone; every other package comes through it from the npm
 * registry npm is configured with. `userconfig` is an npmrc for that registry whose token is read from
 * NODE_AUTH_TOKEN, as setup-node writes one in the release workflow; `token` is a user's, made here.
 */
export async function verdaccio(dir: string, packages: string[]) {
  const bin = (await run("bash", [path.join(root, "scripts", "verdaccio.sh")])).trim();
  const upstream = (await run("npm", ["config", "get", "registry"])).trim();
  const own = packages.map((p) => `  '${p}':\n    access: $all\n    publish: $authenticated\n`).join("");
  fs.mkdirSync(path.join(dir, "storage"), { recursive: true });
  fs.writeFileSync(
    path.join(dir, "config.yaml"),
    `storage: ${path.join(dir, "storage")}\nauth:\n  htpasswd:\n    file: ${path.join(dir, "htpasswd")}\n` +
      `uplinks:\n  npm:\n    url: ${upstream}\n    timeout: 60s\npackages:\n${own}  '**':\n    access: $all\n    proxy: npm\n` +
      "log: { type: stdout, format: pretty, level: warn }\n",
  );
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    const child = spawn(bin, ["--config", path.join(dir, "config.yaml"), "--listen", `127.0.0.1:${port}`], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const close = async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    };
    try {
      await waitFor(
        async () => (await fetch(`${url}-/ping`)).ok,
        () => child.exitCode !== null,
        60_000,
      );
      const user = await fetch(`${url}-/user/org.couchdb.user:rehearsal`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "rehearsal", password: `pw-${process.pid}-${port}` }),
      });
      if (!user.ok) throw new Error(`verdaccio refused the rehearsal's user: ${user.status} ${await user.text()}`);
      const { token } = (await user.json()) as { token: string };
      const userconfig = path.join(dir, "npmrc");
      fs.writeFileSync(userconfig, `registry=${url}\n//127.0.0.1:${port}/:_authToken=\${NODE_AUTH_TOKEN}\n`);
      return { url, token, userconfig, close };
    } catch (err) {
      lastError = new Error(`verdaccio did not start on ${url}: ${err instanceof Error ? err.message : String(err)}\n${output.slice(-2000)}`);
      await close();
    }
  }
  throw lastError;
}

async function waitFor(ready: () => Promise<boolean>, gone: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (gone()) throw new Error("it exited");
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`not ready after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * The Go module at `version` fetched by Go from the tag in `origin` (a bare repository standing for
 * github.com/<repository>, through git's insteadOf), as the module proxy fetches a pushed tag; returns the
 * GOPROXY folder it laid out (`<module>/@v/list`, `.info`, `.mod`, `.zip`) and what Go said of the module.
 */
export async function goProxyFromTag(dir: string, origin: string, repository: string, module: string, version: string) {
  const gitconfig = path.join(dir, "gitconfig");
  fs.writeFileSync(gitconfig, `[url "file://${origin}"]\n\tinsteadOf = https://github.com/${repository}\n[protocol "file"]\n\tallow = always\n`);
  const modcache = path.join(dir, "modcache");
  const env = { ...process.env, GIT_CONFIG_GLOBAL: gitconfig, GOMODCACHE: modcache, GOPROXY: "direct", GOSUMDB: "off", GOFLAGS: "-modcacherw", GO111MODULE: "on" };
  const info = JSON.parse(await run("go", ["mod", "download", "-json", `${module}@v${version}`], { cwd: dir, env })) as {
    Version: string;
    Sum: string;
    Zip: string;
    Origin?: { Ref?: string };
  };
  return { proxy: path.join(modcache, "cache", "download"), info };
}
