"use strict";
// The package folder's entry point (package.json `main`): what Pulumi's Node.js language host loads when it
// runs this folder as the `remote-browser` plugin (`@pulumi/pulumi/cmd/run-plugin`, for `pulumi package add
// <path or git URL>` and the programs that name the folder in their Pulumi.yaml). An installed package runs
// its build (dist/index.js, from index.ts); a source checkout, which has no build, its sources
// (source-checkout.js, which the package does not ship).
const fs = require("node:fs");
const path = require("node:path");

const checkout = path.join(__dirname, "source-checkout.js");
module.exports = fs.existsSync(checkout) ? require(checkout) : require("./dist/index.js");
