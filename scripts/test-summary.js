#!/usr/bin/env node
// After a vitest run (scripts/test.sh): the slowest files, one summary line, and -- when the run failed --
// what failed, written to a file as well. CI shows only the end of a long log, and a failure of the first
// cell scrolls out of it behind the later cells, so .ci/run prints these files again at the very end.
//
//   node scripts/test-summary.js REPORT.json RUN.log EXIT_CODE FAILURES.txt
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const [reportFile, logFile, codeText, failuresFile] = process.argv.slice(2);
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
  const files = report.testResults
    .map((f) => ({ name: f.name.replace(root, ""), s: (f.endTime - f.startTime) / 1000 }))
    .sort((a, b) => b.s - a.s);
  console.log("\nslowest files (wall time, files run in parallel):");
  for (const f of files.slice(0, 10)) console.log(`  ${f.s.toFixed(1).padStart(7)} s  ${f.name}`);
  const skipped = report.numPendingTests + report.numTodoTests;
  console.log(
    `\nvitest: ${report.numPassedTests} passed, ${report.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ""),
  );

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

function firstLines(text, n) {
  const lines = plain(String(text ?? "")).split("\n");
  return lines.slice(0, n).join("\n") + (lines.length > n ? `\n… (${lines.length - n} more lines)` : "");
}

function indent(text) {
  return text.replace(/^/gm, "    ");
}
