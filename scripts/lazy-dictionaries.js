#!/usr/bin/env node
"use strict";
// Prepares the build of the Pulumi CLI (scripts/engine.sh) so that its password-strength dictionaries load
// when first used instead of at every start, and prints the go.mod to build with (`go build -modfile`), or
// nothing when there is nothing to change.
//
//   node scripts/lazy-dictionaries.js WRAPPER_MODULE_DIR OUT_DIR
//
// Why: the CLI links two copies of zxcvbn-go (github.com/nbutton23/zxcvbn-go for `pulumi config set`'s
// "looks like a secret" check, github.com/ccojocar/zxcvbn-go for `pulumi env set`), whose package init
// functions decode their word lists and build ranked dictionaries from them: about 36 MB allocated and
// 0.12 s of CPU at the start of every `pulumi` command, half of what `pulumi version` costs, though only
// those two commands use them. The test suite runs some 3,500 commands (PERFORMANCE.md §8).
//
// What changes: in each copy, `frequency`'s init becomes `Load()` behind a sync.Once, and `matching`'s init,
// which built its matchers from those lists, becomes a sync.Once in `Omnimatch`, the package's one entry
// point to them (both packages' other exported functions are filters that read no list). Nothing else:
// the same sources, as the Go module proxy served them and go.sum verified, with the same results. A copy
// whose sources are not as expected (a future release) is left as it is, and said so.
const fs = require("node:fs");
const path = require("node:path");
const { execFileSync } = require("node:child_process");

const MODULES = ["github.com/nbutton23/zxcvbn-go", "github.com/ccojocar/zxcvbn-go"];

/** The two files with their init functions made lazy, or why not. */
function lazySources(frequency, matching) {
  const edits = [
    ["frequency", '\t"log"\n', '\t"log"\n\t"sync"\n'],
    ["frequency", /\nfunc init\(\) \{\n/, "\nvar loadOnce sync.Once\n\n// Load fills Lists, once.\nfunc Load() { loadOnce.Do(load) }\n\nfunc load() {\n"],
    ["matching", 'import (\n\t"sort"\n', 'import (\n\t"sort"\n\t"sync"\n'],
    ["matching", /\nfunc init\(\) \{\n\s*loadFrequencyList\(\)\n\}\n/, "\nvar loadOnce sync.Once\n"],
    ["matching", /\n\s*if dictionaryMatchers == nil \|\| adjacencyGraphs == nil \{\n\s*loadFrequencyList\(\)\n\s*\}\n/, "\n\tloadOnce.Do(loadFrequencyList)\n"],
    ["matching", /\nfunc loadFrequencyList\(\) \{\n/, "\nfunc loadFrequencyList() {\n\tfrequency.Load()\n"],
  ];
  const text = { frequency, matching };
  for (const [key, from, to] of edits) {
    const next = text[key].replace(from, to);
    if (next === text[key]) return { why: `${key}/${key}.go is not as expected (${String(from).slice(0, 40)})` };
    text[key] = next;
  }
  return text;
}

function main([wrapper, out]) {
  if (!wrapper || !out) throw new Error("usage: lazy-dictionaries.js WRAPPER_MODULE_DIR OUT_DIR");
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const replaces = [];
  for (const mod of MODULES) {
    let info;
    try {
      info = JSON.parse(execFileSync("go", ["mod", "download", "-json", mod], { cwd: wrapper, env: { ...process.env, GOFLAGS: "-mod=mod" }, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
    } catch {
      continue; // not in this release's module graph
    }
    if (!info.Dir) continue;
    const read = (p) => fs.readFileSync(path.join(info.Dir, p), "utf8");
    const lazy = lazySources(read("frequency/frequency.go"), read("matching/matching.go"));
    if (lazy.why) {
      process.stderr.write(`lazy-dictionaries: ${mod}@${info.Version} kept as it is: ${lazy.why}\n`);
      continue;
    }
    const dir = path.join(out, `${mod.split("/").join("_")}@${info.Version}`);
    fs.cpSync(info.Dir, dir, { recursive: true });
    // The module cache's files are read-only, and so are their copies.
    for (const f of ["", ...fs.readdirSync(dir, { recursive: true })]) {
      const p = path.join(dir, f);
      fs.chmodSync(p, fs.statSync(p).isDirectory() ? 0o755 : 0o644);
    }
    fs.writeFileSync(path.join(dir, "frequency", "frequency.go"), lazy.frequency);
    fs.writeFileSync(path.join(dir, "matching", "matching.go"), lazy.matching);
    // A module of before Go modules has no go.mod; a directory a replace names needs one.
    if (!fs.existsSync(path.join(dir, "go.mod"))) fs.writeFileSync(path.join(dir, "go.mod"), `module ${mod}\n`);
    replaces.push(`replace ${mod} => ${dir}\n`);
  }
  if (replaces.length === 0) return;
  fs.writeFileSync(path.join(out, "go.mod"), fs.readFileSync(path.join(wrapper, "go.mod"), "utf8") + "\n" + replaces.join(""));
  fs.copyFileSync(path.join(wrapper, "go.sum"), path.join(out, "go.sum"));
  process.stdout.write(path.join(out, "go.mod"));
}

if (require.main === module) main(process.argv.slice(2));
module.exports = { lazySources };
