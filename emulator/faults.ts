import type { Operation } from "./types";

/**
 * - error: answers status error ("injected fault") without doing the work
 * - insecure: answers status insecure, reason "suspicious_request", without doing the work
 * - rate_limited: answers HTTP 429, status insecure, reason "rate_limited"
 * - reset: destroys the connection before the request is handled (nothing happens)
 * - reset_after: handles the request, then destroys the connection (the answer is lost)
 * - delay: handles the request at once and sends the answer after delayMs (a slow answer)
 * - delay_before: waits delayMs, then handles the request
 * - denied_echo: answers status denied, without doing the work, with a message that repeats the credentials
 *   presented -- the Authorization header as sent, the key URL-encoded, and the request's body -- as a service
 *   or a proxy may (the spec does not say a message cannot)
 */
export type FaultKind = "error" | "insecure" | "rate_limited" | "reset" | "reset_after" | "delay" | "delay_before" | "denied_echo";

export const FAULT_KINDS: readonly FaultKind[] = ["error", "insecure", "rate_limited", "reset", "reset_after", "delay", "delay_before", "denied_echo"];

/** `status` covers both forms of GET /vm/data; `list` only the form without an id; `*` every API call. */
export type FaultOperation = Exclude<Operation, "viewer" | "unknown"> | "*";

export const FAULT_OPERATIONS: readonly FaultOperation[] = ["create", "status", "list", "remove", "image", "account", "quota", "v7create", "v7account", "v7quota", "*"];

export interface FaultSpec {
  operation: FaultOperation;
  kind: FaultKind;
  /** How many matching calls it affects. @default 1 */
  count?: number;
  /** For delay kinds. @default 1000 */
  delayMs?: number;
  /** Only calls that present this API key: tests that share an emulator fault their own account alone. @default every call */
  apiKey?: string;
}

export interface ActiveFault {
  operation: FaultOperation;
  kind: FaultKind;
  remaining: number;
  delayMs: number;
  apiKey?: string;
}

function matches(faultOp: FaultOperation, op: Operation): boolean {
  if (faultOp === "*") return op !== "viewer" && op !== "unknown";
  if (faultOp === "status") return op === "status" || op === "list";
  return faultOp === op;
}

/** Faults apply in the order they were added; each matching call uses up one count. */
export class Faults {
  private active: ActiveFault[] = [];

  add(spec: FaultSpec): ActiveFault {
    const fault: ActiveFault = {
      operation: spec.operation,
      kind: spec.kind,
      remaining: spec.count ?? 1,
      delayMs: spec.delayMs ?? 1000,
      ...(spec.apiKey !== undefined ? { apiKey: spec.apiKey } : {}),
    };
    this.active.push(fault);
    return { ...fault };
  }

  /** The fault for a call of `op` that presents `apiKey` (none for a keyless call), using up one count. */
  take(op: Operation, apiKey?: string): ActiveFault | undefined {
    const fault = this.active.find((f) => f.remaining > 0 && matches(f.operation, op) && (f.apiKey === undefined || f.apiKey === apiKey));
    if (!fault) return undefined;
    fault.remaining--;
    this.active = this.active.filter((f) => f.remaining > 0);
    return { ...fault };
  }

  list(): ActiveFault[] {
    return this.active.map((f) => ({ ...f }));
  }

  clear(): void {
    this.active = [];
  }
}

/** Validates a fault spec from the control surface; returns a message naming the bad field. */
export function parseFaultSpec(input: unknown): FaultSpec | string {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return "body must be a JSON object";
  const o = input as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!["operation", "kind", "count", "delayMs", "apiKey"].includes(key)) return `${key}: unknown field`;
  }
  if (typeof o.operation !== "string" || !(FAULT_OPERATIONS as readonly string[]).includes(o.operation)) {
    return `operation: must be one of ${FAULT_OPERATIONS.join(", ")}`;
  }
  if (typeof o.kind !== "string" || !(FAULT_KINDS as readonly string[]).includes(o.kind)) {
    return `kind: must be one of ${FAULT_KINDS.join(", ")}`;
  }
  if (o.count !== undefined && !(typeof o.count === "number" && Number.isInteger(o.count) && o.count >= 1)) {
    return "count: must be an integer >= 1";
  }
  if (o.delayMs !== undefined && !(typeof o.delayMs === "number" && Number.isFinite(o.delayMs) && o.delayMs >= 0)) {
    return "delayMs: must be a number >= 0";
  }
  if (o.apiKey !== undefined && !(typeof o.apiKey === "string" && o.apiKey !== "")) return "apiKey: must be a non-empty string";
  return o as unknown as FaultSpec;
}
