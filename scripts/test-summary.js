#!/usr/bin/env node
// After a vitest run (scripts/test.sh): the slowest files, one summary line, and -- when the run failed --
// what failed, written to a file as well. CI shows only the end of a long log, and a failure of the first
// cell scrolls out of it behind the later cells, so .ci/run prints these files again at the very end.
//
// With a profile folder (written by test/profile-setup.ts), each slow file's time is split by what it waited on.
//
//   node scripts/test-summary.js REPORT.json RUN.log EXIT_CODE FAILURES.txt [PROFILE_DIR]
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const [reportFile, logFile, codeText, failuresFile, profileDir] = process.argv.slice(2);
const code = Number(codeText);
const root = process.cwd() + path.sep;
const plain = (text) => text.replace(/\u001b\[[0-9;]*m/g, "");

let report;
try {
  report = JSON.parse(fs.readFileSync(reportFile, "utf8"));
} catch {
  report = undefined;
}

const out = [];
if (report) {
  const files = report.testResults.map((f) => ({ name: f.name.replace(root, ""), s: (f.endTime - f.startTime) / 1000 })).sort((a, b) => b.s - a.s);
  const profiles = readProfiles(profileDir);
  if (profiles.size === 0) {
    console.log("\nslowest files (wall time, files run in parallel):");
    for (const f of files.slice(0, 10)) console.log(`  ${f.s.toFixed(1).padStart(7)} s  ${f.name}`);
  } else {
    printProfile(files, profiles);
  }
  const skipped = report.numPendingTests + report.numTodoTests;
  console.log(`\nvitest: ${report.numPassedTests} passed, ${report.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ""));

  for (const file of report.testResults) {
    const name = file.name.replace(root, "");
    const failed = file.assertionResults.filter((t) => t.status === "failed");
    // A file that failed before or after its tests (an import error, a hook) has a message and no failed test.
    if (file.status === "failed" && failed.length === 0) out.push(`FAIL ${name}\n${indent(firstLines(file.message, 30))}`);
    for (const t of failed) out.push(`FAIL ${name} > ${t.fullName}\n${indent(firstLines(t.failureMessages.join("\n"), 30))}`);
  }
}

if (code !== 0) {
  // A run can fail outside its tests: an unhandled error, a process or a temporary file left behind
  // (test/leftovers-setup.ts), a global setup that threw. Those are in the log only.
  let log = "";
  try {
    log = plain(fs.readFileSync(logFile, "utf8"));
  } catch {
    // no log: nothing more to add
  }
  const lines = log.split("\n");
  const marks = [/Unhandled (Error|Rejection)/, /the run left \d+ (process|file)/, /Error: .*global ?setup/i];
  const seen = new Set();
  for (let i = 0; i < lines.length; i++) {
    if (!marks.some((m) => m.test(lines[i])) || seen.has(i)) continue;
    const block = lines.slice(i, i + 25);
    block.forEach((_, k) => seen.add(i + k));
    out.push(block.join("\n").trimEnd());
  }
  if (out.length === 0) out.push(`vitest exited with ${code}; the last lines of its output:\n${lines.slice(-40).join("\n")}`);
  if (!report || report.numFailedTests === 0) console.log(`vitest exited with ${code}: see below`);
}

if (out.length > 0) {
  const text = `${out.join("\n\n")}\n`;
  console.log(`\nwhat failed:\n${text}`);
  fs.writeFileSync(failuresFile, text);
}

/** The profiles of the run's files by file name (relative), and of the e2e global setup as "(e2e setup)". */
function readProfiles(dir) {
  const byFile = new Map();
  if (!dir) return byFile;
  let names = [];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith(".json"));
  } catch {
    return byFile;
  }
  for (const n of names) {
    try {
      const p = JSON.parse(fs.readFileSync(path.join(dir, n), "utf8"));
      byFile.set(p.file.replace(root, ""), p);
    } catch {
      // a profile cut short (a worker that died): the file shows without its split
    }
  }
  return byFile;
}

/** Milliseconds covered by the union of intervals [{start, end}], minus those covered by `minus`. */
function covered(intervals, minus = []) {
  const merge = (list) =>
    list
      .filter((i) => i.end > i.start)
      .sort((a, b) => a.start - b.start)
      .reduce((out, i) => {
        const last = out[out.length - 1];
        if (last && i.start <= last.end) last.end = Math.max(last.end, i.end);
        else out.push({ start: i.start, end: i.end });
        return out;
      }, []);
  const take = merge(minus);
  let total = 0;
  for (const i of merge(intervals)) {
    total += i.end - i.start;
    for (const m of take) total -= Math.max(0, Math.min(i.end, m.end) - Math.max(i.start, m.start));
  }
  return total;
}

/**
 * The slowest files with the wall time each spent with a command of each kind running (overlaps counted
 * once), waiting on a timer while no command ran, and the CPU of the file's process and its children: on
 * a loaded machine CPU says what a file costs far better than wall time.
 */
function printProfile(files, profiles) {
  const s = (ms) => (ms / 1000).toFixed(1).padStart(7);
  const kinds = ["engine", "build", "install", "other"];
  const row = (wall, p) => {
    const of = (kind) => covered(p.commands.filter((c) => c.kind === kind));
    const waits = covered(p.timers, p.commands);
    return `${s(wall)} ${s(p.cpuMs)} ${kinds.map((k) => s(of(k))).join(" ")} ${s(waits)}`;
  };
  console.log("\nslowest files (seconds; files run in parallel; a command of each kind running, timers fired while none ran):");
  console.log(`${"wall".padStart(9)} ${"cpu".padStart(7)} ${kinds.map((k) => k.padStart(7)).join(" ")} ${"waits".padStart(7)}`);
  for (const f of files.slice(0, 15)) {
    const p = profiles.get(f.name);
    console.log(`  ${p ? row(f.s * 1000, p) : s(f.s * 1000)}  ${f.name}`);
  }
  const setup = profiles.get("(e2e setup)");
  if (setup) console.log(`  ${row(setup.wallMs, setup)}  (e2e global setup: build, npm pack, npm install)`);
  const all = [...profiles.values()];
  const sum = (f) => all.reduce((t, p) => t + f(p), 0);
  const kindTotals = kinds.map((k) => `${k} ${(sum((p) => covered(p.commands.filter((c) => c.kind === k))) / 1000).toFixed(0)} s`).join(", ");
  console.log(`all files: cpu ${(sum((p) => p.cpuMs) / 1000).toFixed(0)} s; wall with a command running (summed over files): ${kindTotals}`);
  // A worker that holds its event loop answers nothing meanwhile: not the emulators it hosts (the engine's
  // calls to them wait), not its file's concurrent tests. The longest holds name where to look.
  const holds = [...profiles.entries()]
    .flatMap(([file, p]) => (p.holds ?? []).map((h) => ({ ...h, file })))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 5);
  if (holds.length === 0) console.log("no file held its event loop for 5 s or more");
  else {
    console.log("event loop held for 5 s or more:");
    for (const h of holds) console.log(`  ${s(h.ms)}  ${h.file} > ${h.test}`);
  }
}

function firstLines(text, n) {
  const lines = plain(String(text ?? "")).split("\n");
  return lines.slice(0, n).join("\n") + (lines.length > n ? `\n… (${lines.length - n} more lines)` : "");
}

function indent(text) {
  return text.replace(/^/gm, "    ");
}
