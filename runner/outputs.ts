import type { OutputMap } from "@pulumi/pulumi/automation";

/** The engine's marker of a typed value in serialised state, and the signature of a secret. */
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
const ROOT_STACK_TYPE = "pulumi:pulumi:Stack";

export interface StackOutputs {
  /** Plain values, with a flag on the top-level ones that are secret (the Automation API's shape). */
  outputs: OutputMap;
  /** As `pulumi stack output --json` prints them: every secret, nested ones included, as "[secret]". */
  masked: Record<string, unknown>;
}

/**
 * The stack's outputs from one `pulumi stack export --show-secrets`, in both the views the CLI gives with
 * `pulumi stack output --json` with and without `--show-secrets`. Both CLI commands serialise the root stack
 * resource's outputs with the same serialiser as the export, after taking the secrets out (unwrapped, or
 * replaced by "[secret]"), so doing that here on the export gives the same JSON -- from one CLI start
 * instead of two, each of which would derive the passphrase key again.
 */
export function outputsOfExport(exported: unknown): StackOutputs {
  const resources = (exported as { deployment?: { resources?: unknown } } | null)?.deployment?.resources;
  const root = Array.isArray(resources) ? (resources as Array<Record<string, unknown>>).find((r) => r?.type === ROOT_STACK_TYPE && !r.parent) : undefined;
  const raw = (root?.outputs ?? {}) as Record<string, unknown>;
  const outputs: OutputMap = {};
  const masked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    outputs[key] = { value: reveal(value), secret: isSecret(value) };
    masked[key] = mask(value);
  }
  return { outputs, masked };
}

/**
 * outputsOfExport for the text `pulumi stack export --show-secrets` printed. That text holds every secret of
 * the stack in plain text, and JSON.parse quotes a piece of its input in its error, so a failure here says
 * where, never what.
 */
export function outputsOfExportText(text: string): StackOutputs {
  let exported: unknown;
  try {
    exported = JSON.parse(text);
  } catch {
    throw new Error(`the stack export is not JSON (${text.length} characters; not shown, it holds the stack's secrets)`);
  }
  return outputsOfExport(exported);
}

function isSecret(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && (v as Record<string, unknown>)[SIG_KEY] === SECRET_SIG;
}

/** A secret's value: the export carries it as JSON text (`plaintext`), which may hold further secrets. */
function secretValue(v: Record<string, unknown>): unknown {
  const text = v.plaintext;
  if (typeof text !== "string") {
    // Without --show-secrets the export holds ciphertext only; taking that for the value would be wrong.
    throw new Error("the stack export holds a secret without its plaintext (was it exported with --show-secrets?)");
  }
  return JSON.parse(text);
}

function reveal(v: unknown): unknown {
  if (isSecret(v)) return reveal(secretValue(v));
  if (Array.isArray(v)) return v.map(reveal);
  if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, e]) => [k, reveal(e)]));
  return v;
}

function mask(v: unknown): unknown {
  if (isSecret(v)) return "[secret]";
  if (Array.isArray(v)) return v.map(mask);
  if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, e]) => [k, mask(e)]));
  return v;
}
