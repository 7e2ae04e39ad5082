import type { AuditReport, AuditRow, Holding } from "./audit";
import type { PendingCreate } from "./audit-stacks";
import { projectOf } from "./audit-stacks";

/** The audit as a person reads it: a table of the live sessions, the figures, and what to do about each finding. */

export function formatAge(minutes: number): string {
  const m = Math.floor(minutes);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h${String(m % 60).padStart(2, "0")}m`;
  return `${Math.floor(h / 24)}d${String(h % 24).padStart(2, "0")}h`;
}

function heldBy(h: Holding): string {
  switch (h.kind) {
    case "held":
      return `stack ${h.stacks.join(", ")}`;
    case "pending":
      return `pending create in ${h.stacks.join(", ")}`;
    case "none":
      return "NONE";
    case "unclear":
      return h.via === "recorded"
        ? `one of ${h.stacks.join(", ")} or NONE (masked ids collide)`
        : `pending create in ${h.stacks.join(", ")} or NONE (more sessions of this browser than pending creates)`;
  }
}

function table(header: string[], lines: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const row = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ");
  return [row(header), ...lines.map(row)].join("\n");
}

/** The runner commands that settle a pending create through its own stack (the recovery of a killed `up`). */
export function recoveryCommands(p: PendingCreate, backend: string | undefined): string[] {
  const parts = p.stack.split("/");
  const where = [...(projectOf(p.stack) ? ["--project", parts[1]!] : []), "--stack", parts[parts.length - 1]!, ...(backend ? ["--backend", shellQuote(backend)] : [])].join(" ");
  return [
    `pulumi-remote-browser-run refresh --clear-pending-creates ${where}`,
    `pulumi-remote-browser-run up --program <the stack's program> ${where}`,
  ];
}

function shellQuote(text: string): string {
  if (/^\$[A-Z_]+$/.test(text)) return `"${text}"`;
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

export function formatReport(report: AuditReport, opts: { backend?: string; orphanMinutes: number; calls: number }): string {
  const out: string[] = [];
  out.push(`Account audit: ${report.live} session(s) starting or running in the account; ${report.stacks} stack(s) read.`, "");
  if (report.rows.length) {
    const byKind = (r: AuditRow) => ["none", "unclear", "pending", "held"].indexOf(r.holding.kind);
    const rows = [...report.rows].sort((a, b) => byKind(a) - byKind(b) || b.ageMinutes - a.ageMinutes);
    out.push(
      table(
        ["SESSION (masked)", "BROWSER", "STATE", "AGE", "HELD BY"],
        rows.map((r) => [r.session.maskedId, r.session.browserName, r.session.status, formatAge(r.ageMinutes), heldBy(r.holding)]),
      ),
      "",
    );
  }
  const unclear = report.unclear ? `   unclear: ${report.unclear} (at least ${report.unclearHeldByNone} of them held by none)` : "";
  out.push(
    `running in the account: ${report.live}   held by a stack: ${report.held}   pending in a stack: ${report.pending}   ` +
      `held by none: ${report.heldByNone}${unclear}   masked-id collisions: ${report.collisions}`,
    `held by none and older than ${opts.orphanMinutes} min: ${report.heldByNoneTooOld}${report.unclear ? " (at least)" : ""}`,
    `service calls: ${opts.calls} (one list of the account's sessions${opts.calls > 1 ? ", one image list to name pending creates' browsers" : ""})`,
  );
  if (report.pendingCreates.length) {
    out.push("", "Pending creates (an `up` killed before the engine recorded its create). A re-run adopts the session through its idempotency key;");
    out.push("when no update of the stack is running, run from the stack's work folder, with its secrets as for any run:");
    for (const p of report.pendingCreates) {
      out.push(`  ${p.stack}  ${p.urn}${p.browser ? `  (browser ${p.browser})` : ""}`);
      for (const c of recoveryCommands(p, opts.backend)) out.push(`    ${c}`);
      out.push("    then `destroy` with the same arguments ends it, if the stack should not keep it.");
    }
  }
  const orphans = report.rows.filter((r) => r.holding.kind === "none" || r.holding.kind === "unclear");
  if (orphans.length) {
    out.push(
      "",
      "Held by none: these cannot be ended from here. The service lists them with masked ids, and the end operation",
      "needs the full id; the audit never replays a create to learn one (a key the service does not know starts a new,",
      "billed session). End them where their full id is known: the service's own console, or whoever started them.",
    );
    for (const r of orphans) {
      const loc = r.session.locationApplied === false ? `, location not applied (${r.session.locationReason ?? "unknown"})` : "";
      out.push(`  ${r.session.maskedId}  ${r.session.browserName}, ${r.session.status}, started ${r.session.created} (${formatAge(r.ageMinutes)} ago)${loc}`);
    }
  }
  return `${out.join("\n")}\n`;
}
