import { createHash, createHmac, randomUUID } from "node:crypto";
import { DERIVED_KEY_HEX_LENGTH, DERIVED_KEY_PREFIX } from "../client/scrub";
import { API_INPUTS } from "./fields";

/**
 * What every derived key looks like (declared with the client, which hides such keys in the service's text).
 * A derived key replays its session's create (and so hands out its share link) to anyone holding the
 * account's API key: the runner redacts anything of this shape.
 */
export { DERIVED_KEY_HEX_LENGTH, DERIVED_KEY_PREFIX };

/**
 * Idempotency keys. A key must be the same for every attempt to create one generation of a resource --
 * retries within a run, and the run after an interrupted `pulumi up` -- and new for a replacement.
 * So it is derived, not drawn: from the resource's identity in its stack, the key of the generation it
 * replaces, and the API inputs of the new generation. Nothing random survives a killed process, but
 * these three do (the program still declares the same resource with the same inputs).
 */
export function generationKey(
  seed: string | undefined,
  previousKey: string | undefined,
  inputs: Record<string, unknown>,
  stackSecret?: string,
): string {
  const material = [seed ?? randomUUID(), previousKey ?? "", canonicalApiInputs(inputs)].join("\n");
  // Keyed by the stack's secret when there is one: then nobody without it can compute the key -- not even
  // a program that holds the same API key and knows the project, stack, name and inputs, which could
  // otherwise replay this stack's create and be handed its share link. The secret is stack config, so the
  // run after a killed `pulumi up` derives the same key and still adopts its session.
  const digest = stackSecret ? createHmac("sha256", stackSecret).update(material).digest("hex") : sha256(material);
  return derivedKey(digest);
}

/**
 * The n-th successor of a key. A key's first answer may belong to a session that has since ended
 * (the stack was destroyed and brought up again with the same inputs); the provider then moves along
 * this deterministic chain, so that an interrupted run still lands on the same key as the one before.
 */
export function successorKey(key: string, n: number): string {
  return n === 0 ? key : derivedKey(sha256(`${key}#${n}`));
}

export function canonicalApiInputs(inputs: Record<string, unknown>): string {
  const picked: Record<string, unknown> = {};
  for (const name of API_INPUTS) if (inputs[name] !== undefined && inputs[name] !== null) picked[name] = inputs[name];
  return JSON.stringify(picked);
}

function derivedKey(hexDigest: string): string {
  return `${DERIVED_KEY_PREFIX}${hexDigest.slice(0, DERIVED_KEY_HEX_LENGTH)}`;
}

function sha256(s: string): string {
  return createHash("sha256").update(s).digest("hex");
}
