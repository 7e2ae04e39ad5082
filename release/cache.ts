import * as os from "node:os";
import * as path from "node:path";

/** The folder builds keep what they fetch or build once (Node binaries, SDK generators, test releases). */
export function cacheRoot(): string {
  return path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "pulumi-remote-browser");
}
