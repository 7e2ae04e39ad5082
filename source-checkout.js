"use strict";
// The entry point of a source checkout run as the `remote-browser` plugin (see main.js): a clone, or a git
// URL, which the language host clones and `npm install`s. It has no build, and its TypeScript is compiled
// here, file by file, with the project's own compiler and settings (tsconfig.json beside this file;
// `isolatedModules` there keeps every file compilable on its own). Types are not checked at each start: the
// project's build checks them. run-plugin's own ts-node, which would otherwise compile these files, takes
// its settings from the program's folder -- target ES2020, that folder's tsconfig.json and @types -- so
// whether the plugin started depended on the user's project (a Python program folder with a newer
// @types/node in its node_modules failed on `Array.prototype.at`).
const fs = require("node:fs");
const path = require("node:path");

let ts;
try {
  ts = require("typescript");
} catch {
  throw new Error(`the source checkout of pulumi-remote-browser at ${__dirname} runs from its TypeScript sources and needs its ` + "development dependencies (typescript): run `npm install` there");
}
const config = ts.getParsedCommandLineOfConfigFile(
  path.join(__dirname, "tsconfig.json"),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(`tsconfig.json: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
    },
  },
);
const compilerOptions = { ...config.options, module: ts.ModuleKind.CommonJS, declaration: false, sourceMap: false, inlineSourceMap: true };
const own = __dirname + path.sep;
const modules = path.join(__dirname, "node_modules") + path.sep;
// Node picks the loader by extension: only this folder's sources are taken from whatever loader run-plugin
// registered for .ts (its ts-node), which keeps the rest.
const previous = require.extensions[".ts"];
require.extensions[".ts"] = (module, filename) => {
  if (!filename.startsWith(own) || filename.startsWith(modules)) {
    if (previous) return previous(module, filename);
    throw new Error(`no loader for ${filename}`);
  }
  const { outputText } = ts.transpileModule(fs.readFileSync(filename, "utf8"), { compilerOptions, fileName: filename });
  module._compile(outputText, filename);
};

module.exports = require("./index.ts");
