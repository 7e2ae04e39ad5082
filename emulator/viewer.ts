import type { IncomingMessage, ServerResponse } from "node:http";
import { sendText } from "./http";
import type { Session } from "./sessions";
import type { EmulatorState } from "./state";
import type { ShareLocale } from "./types";
import { isShareLocale } from "./types";
import { VIEWER_TEXT } from "./viewer-text";

/** Which screen the viewer shows; also what the request log records as `status`. */
export type ViewerScreen = "waiting" | "running" | "ended" | "failed" | "gone" | "launch" | "not_found";

// The link id sits in the page URL and acts as a password: no referrer may carry it to callbackUrl,
// no cache may keep it, and the page loads nothing from elsewhere.
const PAGE_HEADERS = {
  "referrer-policy": "no-referrer",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-robots-tag": "noindex, nofollow",
  "x-frame-options": "DENY",
};

const WAITING_REFRESH_S = 1;
const RUNNING_REFRESH_S = 5;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE =
  "body{font-family:system-ui,sans-serif;margin:2rem;color:#222}" +
  ".browser-view{border:1px solid #999;border-radius:6px;padding:1rem;min-height:12rem;background:#f4f4f4}" +
  ".address{font-family:monospace;word-break:break-all}";

function page(opts: { locale: string; screen: ViewerScreen; title: string; heading: string; body: string; refreshS?: number }): string {
  const refresh = opts.refreshS ? `<meta http-equiv="refresh" content="${opts.refreshS}">` : "";
  return (
    `<!doctype html><html lang="${opts.locale}" data-screen="${opts.screen}"><head><meta charset="utf-8">` +
    `<meta name="referrer" content="no-referrer">${refresh}<title>${escapeHtml(opts.title)}</title>` +
    `<style>${STYLE}</style></head><body><h1>${escapeHtml(opts.heading)}</h1>${opts.body}</body></html>`
  );
}

function leaveLink(state: EmulatorState, session: Session, label: string): string {
  const target = session.callbackUrl ?? `${state.shareBase}/`;
  return `<p><a class="leave" href="${escapeHtml(target)}" rel="noreferrer noopener">${escapeHtml(label)}</a></p>`;
}

function sessionPage(state: EmulatorState, locale: ShareLocale, session: Session | undefined): { code: number; screen: ViewerScreen; html: string } {
  const text = VIEWER_TEXT[locale];
  const base = { locale, title: text.title };
  if (!session || session.status === "deleted") {
    return { code: 404, screen: "gone", html: page({ ...base, screen: "gone", heading: text.gone, body: `<p>${escapeHtml(text.goneNote)}</p>` }) };
  }
  switch (session.status) {
    case "starting":
      return {
        code: 200,
        screen: "waiting",
        html: page({ ...base, screen: "waiting", heading: text.waiting, body: `<p>${escapeHtml(text.waitingNote)}</p>`, refreshS: WAITING_REFRESH_S }),
      };
    case "running": {
      const view =
        `<div class="browser-view" data-browser="${escapeHtml(session.browser)}">` +
        `<p class="browser-name">${escapeHtml(session.browserName)}</p>` +
        `<p class="address">${escapeHtml(session.url ?? "about:blank")}</p></div>`;
      return {
        code: 200,
        screen: "running",
        html: page({ ...base, screen: "running", heading: text.running, body: view + leaveLink(state, session, text.leave), refreshS: RUNNING_REFRESH_S }),
      };
    }
    case "error":
      // Not described by the API reference; treated like an ended session with its own wording.
      return { code: 200, screen: "failed", html: page({ ...base, screen: "failed", heading: text.failed, body: leaveLink(state, session, text.leave) }) };
    default:
      return { code: 200, screen: "ended", html: page({ ...base, screen: "ended", heading: text.ended, body: leaveLink(state, session, text.leave) }) };
  }
}

function launchPage(): string {
  return page({
    locale: "en",
    screen: "launch",
    title: "Remote browser",
    heading: "Remote browser sessions",
    body: "<p>Start a session from your application to get a share link for it.</p>",
  });
}

function notFoundPage(): string {
  return page({ locale: "en", screen: "not_found", title: "Not found", heading: "Page not found", body: "" });
}

/** Handles a request to the share origin; returns what the log should record. */
export function handleViewer(state: EmulatorState, req: IncomingMessage, res: ServerResponse): { httpStatus: number; screen: ViewerScreen; vmId?: string } {
  const raw = req.url ?? "/";
  const q = raw.indexOf("?");
  const path = q < 0 ? raw : raw.slice(0, q);
  const linkId = q < 0 ? "" : raw.slice(q + 1);
  const html = "text/html; charset=utf-8";

  if (req.method !== "GET" && req.method !== "HEAD") {
    sendText(res, 405, "method not allowed", "text/plain; charset=utf-8", { allow: "GET, HEAD" });
    return { httpStatus: 405, screen: "not_found" };
  }
  if (path === "/") {
    sendText(res, 200, launchPage(), html, PAGE_HEADERS);
    return { httpStatus: 200, screen: "launch" };
  }
  const match = /^\/([a-z]{2})\/s$/.exec(path);
  if (!match || !isShareLocale(match[1]!)) {
    sendText(res, 404, notFoundPage(), html, PAGE_HEADERS);
    return { httpStatus: 404, screen: "not_found" };
  }
  const session = linkId === "" ? undefined : state.sessions.byLinkId(linkId);
  const result = sessionPage(state, match[1] as ShareLocale, session);
  sendText(res, result.code, result.html, html, PAGE_HEADERS);
  return { httpStatus: result.code, screen: result.screen, ...(session ? { vmId: session.vmId } : {}) };
}
