import * as fs from "node:fs";
import { UsageError } from "./usage";

/**
 * Secret config from a file (`--secrets-file`): a JSON object {"key": "value", ...}. Refused unless only its
 * owner can read or write it: a group or other bit of any kind means someone else could read the secrets,
 * or swap them for their own.
 */
export function readSecretsFile(file: string): Record<string, string> {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (e) {
    throw new UsageError(`--secrets-file ${file}: ${(e as Error).message}`);
  }
  if (!stat.isFile()) throw new UsageError(`--secrets-file ${file}: not a file`);
  if ((stat.mode & 0o077) !== 0) {
    throw new UsageError(`--secrets-file ${file}: open to other users (mode ${(stat.mode & 0o777).toString(8)}); ` + `make it private first: chmod 600 ${file}`);
  }
  if (typeof process.getuid === "function" && stat.uid !== process.getuid()) {
    throw new UsageError(`--secrets-file ${file}: owned by another user`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    throw new UsageError(`--secrets-file ${file}: not valid JSON`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new UsageError(`--secrets-file ${file}: must hold a JSON object {"key": "value", ...}`);
  }
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value !== "string" || value === "") {
      throw new UsageError(`--secrets-file ${file}: the value of ${key} must be a non-empty string`);
    }
  }
  return parsed as Record<string, string>;
}
