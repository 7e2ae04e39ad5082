// Preloaded (node -r) into the runner's process by the secrets test: it turns the runner's redaction off,
// so that the test reads what the engine, the SDK and the provider print before the runner hides anything.
const path = require("node:path");
const pkg = require.resolve("pulumi-remote-browser/package.json", { paths: [process.cwd()] });
const redact = require(path.join(path.dirname(pkg), "dist", "runner", "redact.js"));
redact.redactor = () => (text) => text;
