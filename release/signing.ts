import * as fs from "node:fs";
import { signAdHoc, verifyAdHoc } from "./machoSign";
import { authenticode, peChecksum, stripAuthenticode, withChecksum } from "./peSignature";
import { type Platform, platformId } from "./platforms";

/**
 * What each platform's executable needs around the injection of the single-executable blob, and the check
 * that it got it. macOS: Node's signature is gone after the injection and Apple silicon runs nothing
 * unsigned, so the executable is signed ad hoc (release/machoSign.ts). Windows: Node's Authenticode
 * signature would be left behind, no longer matching, so it is taken out before (release/peSignature.ts),
 * and the executable is plainly unsigned.
 */
export const SIGNING_IDENTIFIER = "pulumi-resource-remote-browser";

/** The Node binary as it goes into the injection. */
export function beforeInjection(platform: Platform, node: Buffer): Buffer {
  return platform.os === "windows" ? stripAuthenticode(node) : node;
}

/** Rewrites the injected executable `file` as it ships. */
export function afterInjection(platform: Platform, file: string): void {
  if (platform.os === "darwin") fs.writeFileSync(file, signAdHoc(fs.readFileSync(file), SIGNING_IDENTIFIER));
  // The injection changes the bytes the header's checksum is over.
  if (platform.os === "windows") fs.writeFileSync(file, withChecksum(fs.readFileSync(file)));
}

/** Throws unless the executable `file` is signed (macOS) or unsigned (Windows) as it should be. */
export function checkSignature(platform: Platform, file: string): void {
  const bytes = fs.readFileSync(file);
  if (platform.os === "darwin") {
    const sig = verifyAdHoc(bytes);
    if (sig.identifier !== SIGNING_IDENTIFIER) throw new Error(`the ${platformId(platform)} executable is signed as ${sig.identifier}, not ${SIGNING_IDENTIFIER}`);
  }
  if (platform.os === "windows") {
    if (authenticode(bytes)) throw new Error(`the ${platformId(platform)} executable still carries an Authenticode signature, which the injection broke`);
    const at = bytes.readUInt32LE(0x3c) + 24 + 64;
    if (bytes.readUInt32LE(at) !== peChecksum(bytes)) throw new Error(`the ${platformId(platform)} executable's PE checksum is not that of its bytes`);
  }
}
