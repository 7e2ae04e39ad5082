// Preloaded (node -r) into the runner's process by the secrets test: it turns the runner's redaction off,
// so that the test reads what the engine, the SDK and the provider print before the runner hides anything.
// The redactor patched is the one beside the runner being run (process.argv[1], its cli.js): resolving the
// package by name from here would find this checkout itself (a package's self-reference), not the copy
// the e2e project installed and runs.
const fs = require("node:fs");
const path = require("node:path");
const redact = require(path.join(path.dirname(fs.realpathSync(process.argv[1])), "redact.js"));
redact.redactor = () => (text) => text;
// Proof that it took, for the test to check: a run whose output lacks this line was redacted after all.
process.stderr.write("raw-output: the runner's redaction is off\n");
