/**
 * The engine's resource names: `urn:pulumi:<stack>::<project>::<type, its parents' types first, joined by
 * $>::<name>`. Read here only: every front that needs a part of one asks this module.
 */

/** Whether `urn` is a URN at all (a dynamic resource's `__urn` of an older program may be anything). */
export function isUrn(urn: unknown): urn is string {
  return typeof urn === "string" && urn.startsWith("urn:pulumi:");
}

/** The resource's name: the URN's last part ("" for an empty URN). */
export function urnName(urn: string): string {
  return urn.slice(urn.lastIndexOf("::") + 2);
}

/** The resource's own type: the last of the URN's `$`-joined types. */
export function urnType(urn: string): string {
  const qualified = urn.split("::")[2] ?? "";
  return qualified.slice(qualified.lastIndexOf("$") + 1);
}

/** The stack's name, the first part after `urn:pulumi:`. */
export function urnStack(urn: string): string | undefined {
  return urn.split("::")[0]?.split(":").at(-1);
}
