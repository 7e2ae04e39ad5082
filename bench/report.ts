/** Small statistics and aligned text tables for the benchmark output. */

export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  // Linear interpolation between closest ranks (the common "type 7" definition).
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export const median = (values: readonly number[]) => quantile(values, 0.5);

export function mean(values: readonly number[]): number {
  return values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

export type Align = "left" | "right";

export interface Column {
  title: string;
  align?: Align;
}

/** Renders rows as an aligned plain-text table with a rule under the header. */
export function table(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((c, i) => Math.max(c.title.length, ...rows.map((r) => (r[i] ?? "").length)));
  const cell = (text: string, i: number) => ((columns[i].align ?? "right") === "left" ? text.padEnd(widths[i]) : text.padStart(widths[i]));
  const line = (cells: readonly string[]) =>
    cells
      .map((t, i) => cell(t, i))
      .join("  ")
      .trimEnd();
  return [line(columns.map((c) => c.title)), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

export const ms = (v: number) => (Number.isFinite(v) ? `${Math.round(v)}` : "-");
export const sec = (v: number, digits = 2) => (Number.isFinite(v) ? (v / 1000).toFixed(digits) : "-");
export const fixed = (v: number, digits = 2) => (Number.isFinite(v) ? v.toFixed(digits) : "-");
export const yesNo = (ok: boolean) => (ok ? "met" : "MISSED");

/** Collects everything printed, so the run can also be saved as a text report. */
export class Printer {
  private readonly lines: string[] = [];
  say(text = ""): void {
    process.stdout.write(`${text}\n`);
    this.lines.push(text);
  }
  heading(text: string): void {
    this.say();
    this.say(`## ${text}`);
    this.say();
  }
  text(): string {
    return `${this.lines.join("\n")}\n`;
  }
}
