import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { type PackageSchema, SCHEMA_FILE, withNativeSchema, LOGO_FILE, packageMetadata } from "../../plugin/packageSchema";
import { pluginIdentity } from "../../plugin/identity";

/**
 * What the served schema says of the package: what a registry lists, where the engine fetches the plugin,
 * and the package names of each language's SDK, all from the plugin's identity.
 */
const root = path.resolve(__dirname, "..", "..");
const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const served = withNativeSchema({ ...(JSON.parse(fs.readFileSync(path.join(root, SCHEMA_FILE), "utf8")) as PackageSchema), version: manifest.version });

describe("the package metadata of the served schema", () => {
  it("says what the package is, who publishes it and under which license, for a registry listing", () => {
    expect(served.displayName).toBe("Remote Browser");
    expect(served.description).toMatch(/remote browser sessions/i);
    expect(served.description).not.toMatch(/dynamic provider/i);
    expect(served.publisher).toBe("remote-browser");
    expect(served.repository).toBe("https://github.com/remote-browser/pulumi-remote-browser");
    expect(served.homepage).toBe(served.repository);
    expect(served.license).toBe(manifest.license);
    const keywords = served.keywords as string[];
    expect(keywords).toContain("kind/native");
    expect(keywords.filter((k) => k.startsWith("category/"))).toEqual(["category/utility"]);
  });

  it("passes the metadata rules of the registry's generator (resourcedocsgen's writePackageMetadata)", () => {
    // The name the registry infers from the repository's name (`pulumi-` dropped), a semver version, a
    // publisher, and a `category/` keyword among the registry's categories (pkg/lookup.go CategoryNameMap).
    const slugName = (served.repository as string)
      .split("/")
      .pop()!
      .replace(/^pulumi-/, "");
    expect(served.name).toBe(slugName);
    expect(served.version).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
    expect(served.publisher).toMatch(/\S/);
    const categories = ["cloud", "database", "infrastructure", "monitoring", "network", "utility", "vcs"];
    const tags = (served.keywords as string[]).filter((k) => k.startsWith("category/")).map((k) => k.slice("category/".length));
    expect(tags.length).toBe(1);
    expect(categories).toContain(tags[0]);
    expect(served.keywords).not.toContain("kind/component");
  });

  it("names the plugin's download address and version, so SDKs generated from it make the engine fetch this plugin", () => {
    expect(served.pluginDownloadURL).toBe("github://api.github.com/remote-browser/pulumi-remote-browser");
    expect(served.pluginDownloadURL).toBe(pluginIdentity().pluginDownloadURL);
    expect(served.version).toBe(pluginIdentity().version);
    for (const lang of ["nodejs", "python", "go", "csharp", "java"]) {
      expect((served.language as Record<string, { respectSchemaVersion?: boolean }>)[lang]!.respectSchemaVersion, lang).toBe(true);
    }
  });

  it("points its logo at a PNG of the repository, at the version's tag", () => {
    expect(served.logoUrl).toBe(`https://raw.githubusercontent.com/remote-browser/pulumi-remote-browser/v${manifest.version}/${LOGO_FILE}`);
    const logo = fs.readFileSync(path.join(root, LOGO_FILE));
    expect(logo.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  });

  it("names each language's package: not the dynamic provider's npm name, nor Pulumi's own NuGet prefix or Maven group", () => {
    expect(served.language).toMatchObject({
      nodejs: { packageName: "@remote-browser/pulumi" },
      python: { packageName: "pulumi_remote_browser" },
      go: { importBasePath: "github.com/remote-browser/pulumi-remote-browser/sdk/go/remotebrowser" },
      csharp: { rootNamespace: "RemoteBrowser", namespaces: { "remote-browser": "Pulumi" } },
      java: { basePackage: "io.github.remotebrowser" },
    });
    expect((served.language as { nodejs: { packageName: string } }).nodejs.packageName).not.toBe(manifest.name);
  });

  it("derives every name and address from the identity: a fork's release names the fork", () => {
    const fork = packageMetadata({
      name: "remote-browser",
      version: "2.3.4",
      pluginDownloadURL: "github://api.github.com/acme-labs/browsers",
      repository: "https://github.com/acme-labs/browsers",
    });
    expect(fork).toMatchObject({
      publisher: "acme-labs",
      repository: "https://github.com/acme-labs/browsers",
      pluginDownloadURL: "github://api.github.com/acme-labs/browsers",
      logoUrl: `https://raw.githubusercontent.com/acme-labs/browsers/v2.3.4/${LOGO_FILE}`,
      language: {
        nodejs: { packageName: "@acme-labs/pulumi" },
        go: { importBasePath: "github.com/acme-labs/browsers/sdk/go/remotebrowser" },
        csharp: { rootNamespace: "AcmeLabs" },
        java: { basePackage: "io.github.acmelabs" },
      },
    });
  });
});
