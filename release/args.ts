/** `npm run release` arguments, checked before anything is built. */
export interface ReleaseArgs {
  version: string;
  pluginDownloadURL?: string;
  out: string;
  platforms?: string;
  /** false: no SDKs (`--no-sdks`), for a build of the plugin archives alone. */
  sdks?: boolean;
}

export const USAGE = `usage: npm run release -- --version <semver> [--plugin-download-url <url>] --out <dir> [--platforms linux-amd64,...]

  --version               the release's version, semver without a leading "v" (1.2.3, 1.2.3-rc.1)
  --plugin-download-url   where the engine downloads the plugin archives: github://api.github.com/<owner>/<repo>,
                          gitlab://..., or an http(s):// base folder (default: the repository's GitHub releases)
  --out                   the folder to write into: new, empty, or the output of an earlier release
  --platforms             a comma-separated subset of linux-amd64, linux-arm64, darwin-amd64, darwin-arm64,
                          windows-amd64 (default: all)
  --no-sdks               the plugin archives, checksums, schema and npm tarball only: no SDKs`;

// semver.org's own expression.
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

const FLAGS: Record<string, Exclude<keyof ReleaseArgs, "sdks">> = {
  "--version": "version",
  "--plugin-download-url": "pluginDownloadURL",
  "--out": "out",
  "--platforms": "platforms",
};

/** The arguments, or an Error naming what is wrong with them. */
export function parseArgs(argv: string[]): ReleaseArgs | Error {
  const got: Partial<ReleaseArgs> = {};
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--no-sdks") {
      got.sdks = false;
      continue;
    }
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const key = FLAGS[flag];
    if (!key) return new Error(`unknown argument ${JSON.stringify(argv[i])}`);
    if (got[key] !== undefined) return new Error(`${flag} is given twice`);
    const value = inline ?? argv[++i];
    if (value === undefined || value === "" || (inline === undefined && value.startsWith("--"))) return new Error(`${flag} needs a value`);
    got[key] = value;
  }
  if (!got.version) return new Error("--version is required");
  if (got.version.startsWith("v") && SEMVER.test(got.version.slice(1))) return new Error(`--version is given without the leading "v": ${got.version.slice(1)}`);
  if (!SEMVER.test(got.version)) return new Error(`--version ${JSON.stringify(got.version)} is not a semantic version (1.2.3, 1.2.3-rc.1)`);
  if (!got.out) return new Error("--out is required");
  if (got.pluginDownloadURL !== undefined && !/^(github|gitlab|https?):\/\/[^\s/]+/.test(got.pluginDownloadURL)) {
    return new Error(`--plugin-download-url ${JSON.stringify(got.pluginDownloadURL)} is not a github://, gitlab:// or http(s):// address`);
  }
  return got as ReleaseArgs;
}
