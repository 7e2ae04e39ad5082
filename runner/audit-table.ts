import type { AuditReport, AuditRow, Holding } from "./audit";
import type { PendingCreate } from "./audit-stacks";
import { runnerCommand, shellQuote } from "./advice";
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

/**
 * Text from a stack's state or the service's list, made safe to print: anyone who can write a stack's state
 * (a pull request's job can) chooses its URNs and inputs. Control characters (line breaks, ANSI escapes),
 * Unicode line separators and direction overrides are shown escaped, and a `::` that would open the line is
 * escaped too, so that no value can start a line of its own, recolour the terminal or issue a GitHub workflow
 * command (`::error::`, `::add-mask::`).
 */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what it escapes
  const escaped = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
  return escaped.replace(/^(\s*):/, "$1\\x3a");
}

/** Where the printed commands find the backend: a URL without a password, or the variable holding it. */
export type BackendShown = { url: string } | { variable: string };

/**
 * The commands that settle a pending create (the recovery of a killed `up`). The plain CLI's fit any program
 * (YAML, Python, Go, TypeScript), named by the stack's full name; the runner's are added for a stack the runner
 * made (`runnerMade`), where its own passphrase handling and program apply.
 */
export function recoveryCommands(p: PendingCreate, backend: BackendShown | undefined, runnerMade = false): string[] {
  const stack = shellQuote(p.stack);
  const commands = [`pulumi cancel --yes --stack ${stack}`, `pulumi refresh --clear-pending-creates --yes --stack ${stack}`];
  if (!runnerMade) return commands;
  const parts = p.stack.split("/");
  const where = {
    stack: parts[parts.length - 1]!,
    project: projectOf(p.stack) || "<the stack's project>",
    backend: backend === undefined ? undefined : "url" in backend ? `--backend ${backend.url}` : `--backend-env ${backend.variable}`,
  };
  return [
    ...commands,
    `or, as the runner made this stack: ${runnerCommand("refresh", where, "--clear-pending-creates")}`,
    `                            then ${runnerCommand("up", { ...where, program: "<the stack's program>" })}`,
  ];
}

export function formatReport(
  report: AuditReport,
  opts: {
    backend?: BackendShown;
    orphanMinutes: number;
    calls: number;
    /** Of the calls, reads of recorded sessions on their own. */
    reads?: number;
    /** The stacks the runner made (tagged RUNNER_STACK_TAG): their pending creates get the runner's commands too. */
    runnerStacks?: ReadonlySet<string>;
    /** Stacks whose state could not be read. */
    unreadable?: Array<{ stack: string; reason: string }>;
  },
): string {
  const out: string[] = [];
  out.push(`Account audit: ${report.live} session(s) starting or running in the account; ${report.stacks} stack(s) read.`, "");
  if (report.rows.length) {
    const byKind = (r: AuditRow) => ["none", "unclear", "pending", "held"].indexOf(r.holding.kind);
    const rows = [...report.rows].sort((a, b) => byKind(a) - byKind(b) || b.ageMinutes - a.ageMinutes);
    out.push(
      table(
        ["SESSION (masked)", "BROWSER", "STATE", "AGE", "HELD BY"],
        rows.map((r) => [r.session.maskedId, r.session.browserName, r.session.status, formatAge(r.ageMinutes), heldBy(r.holding)].map(printable)),
      ),
      "",
    );
  }
  const reads = opts.reads ?? 0;
  const unclear = report.unclear ? `   unclear: ${report.unclear} (at least ${report.unclearHeldByNone} of them held by none)` : "";
  out.push(
    `running in the account: ${report.live}   held by a stack: ${report.held}   pending in a stack: ${report.pending}   ` +
      `held by none: ${report.heldByNone}${unclear}   masked-id collisions: ${report.collisions}`,
    `held by none and older than ${opts.orphanMinutes} min: ${report.heldByNoneTooOld}${report.unclear ? " (at least)" : ""}`,
    `service calls: ${opts.calls} (one list of the account's sessions${reads ? `, ${reads} read${reads > 1 ? "s" : ""} of recorded sessions the list could not tell apart` : ""}${opts.calls - 1 - reads > 0 ? ", one image list to name pending creates' browsers" : ""})`,
  );
  if (opts.unreadable?.length) {
    out.push("", `Stacks that could not be read (${opts.unreadable.length}): what they record is not counted, so a session one of them holds shows as held by none.`);
    for (const u of opts.unreadable) out.push(`  ${printable(u.stack)}: ${printable(u.reason)}`);
  }
  if (report.pendingCreates.length) {
    const login = opts.backend === undefined ? "" : "url" in opts.backend ? ` (pulumi login ${opts.backend.url})` : ` ($${opts.backend.variable})`;
    out.push("", "Pending creates (an `up` killed before the engine recorded its create). A re-run adopts the session through its idempotency key.");
    out.push(`When no update of the stack is running, run in the program's folder, with the CLI on the same backend${login} and the`);
    out.push("stack's passphrase; then `pulumi up` of the stack's program:");
    for (const p of report.pendingCreates) {
      out.push(`  ${printable(p.stack)}  ${printable(p.urn)}${p.browser ? `  (browser ${printable(p.browser)})` : ""}`);
      for (const c of recoveryCommands(p, opts.backend, opts.runnerStacks?.has(p.stack))) out.push(`    ${printable(c)}`);
      out.push("    then `pulumi destroy` of the stack ends it, if the stack should not keep it.");
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
      out.push(printable(`  ${r.session.maskedId}  ${r.session.browserName}, ${r.session.status}, started ${r.session.created} (${formatAge(r.ageMinutes)} ago)${loc}`));
    }
  }
  return `${out.join("\n")}\n`;
}
