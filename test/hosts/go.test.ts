import * as fs from "node:fs";
import * as path from "node:path";
import { expect, inject, it } from "vitest";
import { RELEASE_VERSION } from "../e2e/release-build";
import { acquireFrom, hostsBed, releaseProgramLifecycle, stack } from "./hosts";

/**
 * A Go program with `pulumi` under Pulumi's Go language host (pulumi-language-go), as a user runs it: on the
 * release's Go module, required by its import path (replaced by the release's folder, as the module proxy
 * would serve the tag), the plugin downloaded by the engine from the module's pluginDownloadURL.
 */
const IMPORT_PATH = "github.com/remote-browser/pulumi-remote-browser/sdk/go/remotebrowser";
const bed = hostsBed("go", ["go"]);

it("a program on the release's Go module: BrowserSession, ReviewSessions and getImages through up, preview and refresh without changes, destroy; the plugin acquired by the engine", async () => {
  const dir = path.join(bed.base, "program");
  fs.cpSync(path.join(__dirname, "programs", "go"), dir, { recursive: true });
  const module = path.join(inject("hosts").sdks, "go", "remotebrowser");
  // Required at no version of its own: Go refuses v9.9.9-e2e for a module path without a /v9 suffix (the
  // release's module path has none, which Go accepts up to v1). The engine takes the plugin's version from
  // the module's pulumi-plugin.json, not from go.mod.
  fs.writeFileSync(path.join(dir, "go.mod"), `module example.test/hosts\n\ngo 1.24\n\nrequire ${IMPORT_PATH} v0.0.0-00010101000000-000000000000\n\nreplace ${IMPORT_PATH} => ${module}\n`);
  expect(JSON.parse(fs.readFileSync(path.join(module, "pulumi-plugin.json"), "utf8")).version).toBe(RELEASE_VERSION);
  fs.copyFileSync(path.join(module, "go.sum"), path.join(dir, "go.sum"));
  const { cli, account } = await stack(bed.pulumiBin, dir, path.join(bed.base, "state"), bed.emulator);
  // The module's go.sum has the SDK's modules; the program's own requirements are resolved at its first build.
  Object.assign(cli.env, { GOFLAGS: "-mod=mod", GOSUMDB: "off" });
  acquireFrom(cli, `${bed.server.url}go/`);
  await releaseProgramLifecycle(cli, bed, account, "go");
});
