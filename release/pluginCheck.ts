import { spawn } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as http2 from "node:http2";
import * as net from "node:net";
import * as path from "node:path";
import { parseArgs } from "node:util";

/**
 * `node dist/release/pluginCheck.js --executable FILE --archive FILE --checksums FILE --version V`: starts
 * a released plugin executable as the engine does and asks it for GetPluginInfo and GetSchema, after
 * checking that its archive is the one checksums.txt names. The release workflow runs it on a runner of
 * each platform before anything is published; it needs Node.js alone (no npm packages: gRPC's framing and
 * the two answers' protobuf fields are read here), so the same check runs wherever Node does.
 */

const START_TIMEOUT_MS = 60_000;
const CALL_TIMEOUT_MS = 30_000;

export interface PluginAnswers {
  startMs: number;
  version: string;
  schema: { name: string; version?: string; resources: string[] };
}

/** The archive's SHA-256 as checksums.txt (sha256sum's format) records it; throws when it differs or is absent. */
export function checkArchive(archive: string, checksums: string): void {
  const name = path.basename(archive);
  const line = fs
    .readFileSync(checksums, "utf8")
    .split("\n")
    .find((l) => l.endsWith(`  ${name}`) || l.endsWith(` *${name}`));
  if (!line) throw new Error(`${checksums} has no line for ${name}`);
  const want = line.slice(0, 64);
  const got = crypto.createHash("sha256").update(fs.readFileSync(archive)).digest("hex");
  if (got !== want) throw new Error(`${name} has SHA-256 ${got}, but checksums.txt says ${want}`);
}

/** A gRPC message frame: uncompressed flag, big-endian length, the message. */
function frame(message: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(message.length, 1);
  return Buffer.concat([head, message]);
}

function varint(buf: Buffer, at: number): [number, number] {
  let value = 0;
  let shift = 0;
  for (;;) {
    if (at >= buf.length) throw new Error("a protobuf varint runs past the message");
    const b = buf[at++];
    value += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return [value, at];
    shift += 7;
  }
}

/** The string field `field` of a protobuf message (both answers asked for are a string in field 1). */
export function stringField(message: Buffer, field: number): string {
  let at = 0;
  while (at < message.length) {
    const [key, next] = varint(message, at);
    at = next;
    const wire = key & 7;
    if (wire === 2) {
      const [len, start] = varint(message, at);
      if (key >>> 3 === field) return message.toString("utf8", start, start + len);
      at = start + len;
    } else if (wire === 0) {
      at = varint(message, at)[1];
    } else if (wire === 1) {
      at += 8;
    } else if (wire === 5) {
      at += 4;
    } else {
      throw new Error(`unexpected protobuf wire type ${wire}`);
    }
  }
  return "";
}

function unary(client: http2.ClientHttp2Session, method: string, request: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const stream = client.request({ ":method": "POST", ":path": `/pulumirpc.ResourceProvider/${method}`, "content-type": "application/grpc", te: "trailers" });
    const chunks: Buffer[] = [];
    let status: string | undefined;
    let detail = "";
    const timer = setTimeout(() => stream.close(http2.constants.NGHTTP2_CANCEL), CALL_TIMEOUT_MS);
    const note = (headers: http2.IncomingHttpHeaders) => {
      if (headers["grpc-status"] !== undefined) status = String(headers["grpc-status"]);
      if (headers["grpc-message"] !== undefined) detail = decodeURIComponent(String(headers["grpc-message"]));
    };
    stream.on("response", note);
    stream.on("trailers", note);
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("error", (e) => reject(new Error(`${method}: ${e.message}`)));
    stream.on("close", () => {
      clearTimeout(timer);
      const body = Buffer.concat(chunks);
      if (status !== "0") return reject(new Error(`${method} failed: gRPC status ${status ?? "none (no answer)"} ${detail}`.trim()));
      if (body.length < 5 || body[0] !== 0) return reject(new Error(`${method} answered ${body.length} bytes, not one uncompressed message`));
      resolve(body.subarray(5, 5 + body.readUInt32BE(1)));
    });
    stream.end(frame(request));
  });
}

/**
 * Starts `executable` with the address of a stand-in engine (a port that accepts connections, as the
 * plugin checks its engine is there), reads the port it prints, asks GetPluginInfo and GetSchema, and
 * ends it. `launcher`: a command that runs the executable (its first argument) with the rest, such as
 * the tests' Wine runner for the Windows executable (scripts/wine.sh).
 */
export async function askPlugin(executable: string, opts: { launcher?: string; startTimeoutMs?: number } = {}): Promise<PluginAnswers> {
  const startTimeoutMs = opts.startTimeoutMs ?? START_TIMEOUT_MS;
  const engine = net.createServer((s) => s.destroy());
  await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
  const started = performance.now();
  const args = [`127.0.0.1:${(engine.address() as net.AddressInfo).port}`];
  const child = opts.launcher ? spawn(opts.launcher, [executable, ...args], { stdio: ["ignore", "pipe", "pipe"] }) : spawn(executable, args, { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr = (stderr + d).slice(-4000)));
  let client: http2.ClientHttp2Session | undefined;
  try {
    const port = await new Promise<string>((resolve, reject) => {
      let out = "";
      const timer = setTimeout(() => reject(new Error(`${executable} printed no port in ${startTimeoutMs / 1000} s:\n${stderr}`)), startTimeoutMs);
      child.stdout!.setEncoding("utf8").on("data", (d: string) => {
        out += d;
        const line = /^(\d+)\s*\n/.exec(out);
        if (line) {
          clearTimeout(timer);
          resolve(line[1]);
        }
      });
      // The time-out is cleared on every way out, not only the port: a launcher that fails (Wine's limit is
      // minutes) would otherwise keep its timer armed after the check has failed.
      child.once("error", (e) => {
        clearTimeout(timer);
        reject(new Error(`${executable} did not start: ${e.message}`));
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${executable} exited (${signal ?? code}) before printing its port:\n${stderr}`));
      });
    });
    const startMs = performance.now() - started;
    client = http2.connect(`http://127.0.0.1:${port}`);
    client.on("error", () => undefined);
    const info = await unary(client, "GetPluginInfo", Buffer.alloc(0));
    const version = stringField(info, 1);
    const schemaText = stringField(await unary(client, "GetSchema", Buffer.alloc(0)), 1);
    const schema = JSON.parse(schemaText) as { name?: string; version?: string; resources?: Record<string, unknown> };
    return { startMs, version, schema: { name: schema.name ?? "", version: schema.version, resources: Object.keys(schema.resources ?? {}) } };
  } finally {
    client?.close();
    child.kill();
    engine.close();
  }
}

/** Throws unless the plugin's answers are those of the release `version`. */
export function checkAnswers(answers: PluginAnswers, version: string): void {
  if (answers.version !== version) throw new Error(`GetPluginInfo answered version ${JSON.stringify(answers.version)}, not ${version}`);
  if (answers.schema.name !== "remote-browser") throw new Error(`GetSchema answered the package ${JSON.stringify(answers.schema.name)}, not remote-browser`);
  if (!answers.schema.resources.includes("remote-browser:index:BrowserSession")) {
    throw new Error(`GetSchema's resources lack remote-browser:index:BrowserSession (it has ${answers.schema.resources.join(", ") || "none"})`);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { executable: { type: "string" }, archive: { type: "string" }, checksums: { type: "string" }, version: { type: "string" } },
  });
  for (const flag of ["executable", "archive", "checksums", "version"] as const) {
    if (!values[flag]) throw new Error(`--${flag} is required`);
  }
  checkArchive(values.archive!, values.checksums!);
  const answers = await askPlugin(path.resolve(values.executable!));
  checkAnswers(answers, values.version!);
  console.log(
    `${path.basename(values.archive!)}: started, port printed in ${Math.round(answers.startMs)} ms; GetPluginInfo: version ${answers.version}; ` +
      `GetSchema: package ${answers.schema.name}, ${answers.schema.resources.length} resources`,
  );
}

if (require.main === module) {
  main().catch((e: Error) => {
    console.error(`::error::${e.message}`);
    process.exit(1);
  });
}
