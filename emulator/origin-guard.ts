import type { IncomingMessage, ServerResponse } from "node:http";
import { isIP } from "node:net";
import { sendJson } from "./http";

/**
 * The emulator's control surface takes no key, and its API answers with the default account's sessions.
 * A web page open in a developer's browser can send requests to 127.0.0.1 too, and with DNS rebinding it
 * can even read the answers: the only thing such a request cannot choose is its Host header, which names
 * the page's own domain. So every request (API, viewer and control alike) must name a loopback host,
 * unless the emulator was explicitly started for remote use.
 */

/** localhost, *.localhost, 127.0.0.0/8 and ::1 (bracketed in a Host header). */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (isIP(h) === 6) return h === "::1" || h === "0:0:0:0:0:0:0:1" || /^::ffff:127\./.test(h);
  return false;
}

/** The host part of a Host header (without its port), or undefined when the header is missing or malformed. */
export function hostOfHeader(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::\d+)?$/.exec(header.trim());
  return m?.[1];
}

/**
 * Refuses (HTTP 421, with a message) a request whose Host header is not a loopback name or address.
 * Returns true when the request may go on.
 */
export function admitHost(req: IncomingMessage, res: ServerResponse, allowRemote: boolean): boolean {
  if (allowRemote) return true;
  const host = hostOfHeader(req.headers.host);
  if (host !== undefined && isLoopbackHost(host)) return true;
  sendJson(res, 421, {
    status: "denied",
    message:
      `the emulator answers only requests for a loopback host (localhost, 127.0.0.1, [::1]); this one was for ` +
      `${JSON.stringify(req.headers.host ?? "")}. Start it with --allow-remote to serve other hosts`,
  });
  return false;
}
