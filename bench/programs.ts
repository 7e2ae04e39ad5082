/**
 * The two stacks of the scale benchmark, as inline programs: N BrowserSessions, and the engine's
 * baseline, N trivial dynamic resources whose provider answers at once.
 */
import * as pulumi from "@pulumi/pulumi";
import { BrowserSession } from "../sdk";

/** A provider that does nothing: the engine's own cost of a dynamic resource. It captures nothing. */
const trivialProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs) {
    return { id: `trivial-${inputs.index}`, outs: inputs };
  },
  async diff() {
    return { changes: false };
  },
  async delete() {},
};

/** The baseline's resource, a dynamic resource like BrowserSession. */
class Trivial extends pulumi.dynamic.Resource {
  constructor(name: string, props: { index: number }) {
    super(trivialProvider, name, props, undefined, "bench", "Trivial");
  }
}

export type StackKind = "baseline" | "sessions";

export function program(kind: StackKind, count: number): () => Promise<Record<string, unknown>> {
  return async () => {
    const ids: pulumi.Output<string>[] = [];
    for (let i = 0; i < count; i++) {
      if (kind === "sessions") ids.push(new BrowserSession(`session-${i}`, { browser: "chrome" }).vmId);
      else ids.push(new Trivial(`trivial-${i}`, { index: i }).id);
    }
    return { count: ids.length };
  };
}
