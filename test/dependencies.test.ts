import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

/**
 * Dependencies are kept current by Dependabot (.github/dependabot.yml): an update is proposed only for a
 * manifest some entry names, so a manifest added without an entry would silently stay where it was pinned.
 * And an install of a fresh clone says nothing: every dependency with an install script is reviewed in
 * package.json's `allowScripts` (npm 11 warns about the others; npm 12 blocks them).
 */
const root = path.resolve(__dirname, "..");

/** Manifest file name → the Dependabot ecosystem that reads it. */
const ECOSYSTEMS: [RegExp, string][] = [
  [/^package\.json$/, "npm"],
  [/^go\.mod$/, "gomod"],
  [/^(requirements.*\.txt|pyproject\.toml|Pipfile|setup\.py)$/, "pip"],
  [/^Dockerfile$/, "docker"],
  [/^Cargo\.toml$/, "cargo"],
  [/^(pom\.xml|build\.gradle(\.kts)?)$/, "maven"],
  [/^.*\.csproj$/, "nuget"],
];

/** What is not the project's own: ignored by git (.gitignore's folders) or installed into the tree. */
function skipped(): Set<string> {
  const ignored = fs
    .readFileSync(path.join(root, ".gitignore"), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.endsWith("/") && !l.startsWith("#"))
    .map((l) => l.slice(0, -1));
  return new Set([".git", ...ignored]);
}

/** Every manifest in the working tree, as [ecosystem, folder relative to the root ("/" for the root)]. */
export function manifests(dir = root, skip = skipped()): [string, string][] {
  const found: [string, string][] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!skip.has(entry.name)) found.push(...manifests(path.join(dir, entry.name), skip));
      continue;
    }
    const ecosystem = ECOSYSTEMS.find(([re]) => re.test(entry.name))?.[1];
    if (ecosystem) found.push([ecosystem, "/" + path.relative(root, dir).split(path.sep).join("/")]);
  }
  return found.map(([e, d]) => [e, d === "/" ? "/" : d.replace(/\/$/, "")]);
}

interface Update {
  "package-ecosystem": string;
  directory?: string;
  directories?: string[];
  groups?: Record<string, unknown>;
}

/** The manifests no Dependabot entry covers. */
export function uncovered(found: [string, string][], updates: Update[]): string[] {
  const covered = new Set(updates.flatMap((u) => [u.directory, ...(u.directories ?? [])].filter(Boolean).map((d) => `${u["package-ecosystem"]} ${d}`)));
  return found.map(([e, d]) => `${e} ${d}`).filter((m) => !covered.has(m));
}

describe("updates proposed by Dependabot", () => {
  const config = parse(fs.readFileSync(path.join(root, ".github", "dependabot.yml"), "utf8")) as { version: number; updates: Update[] };

  it("finds a manifest that no entry covers, by ecosystem and folder", () => {
    const updates: Update[] = [
      { "package-ecosystem": "npm", directories: ["/", "/examples/a"] },
      { "package-ecosystem": "gomod", directory: "/engine" },
    ];
    expect(
      uncovered(
        [
          ["npm", "/"],
          ["npm", "/examples/a"],
          ["npm", "/examples/b"],
          ["gomod", "/engine"],
          ["gomod", "/engine/current"],
          ["pip", "/"],
        ],
        updates,
      ),
    ).toEqual(["npm /examples/b", "gomod /engine/current", "pip /"]);
  });

  it("covers every manifest in the repository", () => {
    const found = manifests();
    // The tree holds the package's, the examples', the Go wrapper modules' and the Python example's.
    expect(found).toContainEqual(["npm", "/"]);
    expect(found).toContainEqual(["gomod", "/engine/current"]);
    expect(found).toContainEqual(["pip", "/examples/python-review"]);
    expect(config.version).toBe(2);
    expect(uncovered(found, config.updates)).toEqual([]);
  });

  it("covers the workflows' actions, grouped, so their SHA pins move together", () => {
    const actions = config.updates.find((u) => u["package-ecosystem"] === "github-actions");
    expect(actions?.directory).toBe("/");
    expect(Object.keys(actions?.groups ?? {})).not.toEqual([]);
    expect(fs.readdirSync(path.join(root, ".github", "workflows")).length).toBeGreaterThan(0);
  });
});

describe("install scripts", () => {
  it("reviews every locked dependency that has one in allowScripts", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { allowScripts?: Record<string, boolean> };
    const lock = JSON.parse(fs.readFileSync(path.join(root, "package-lock.json"), "utf8")) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const withScripts = Object.entries(lock.packages)
      .filter(([, p]) => p.hasInstallScript)
      .map(([where]) => where.slice(where.lastIndexOf("node_modules/") + "node_modules/".length));
    expect(withScripts).toContain("esbuild");
    expect(withScripts.filter((name) => typeof manifest.allowScripts?.[name] !== "boolean")).toEqual([]);
  });
});
