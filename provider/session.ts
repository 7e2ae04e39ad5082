import { check } from "./check";
import type { Failure } from "./check";
import { ProviderContext } from "./context";
import type { ProviderDeps } from "./context";
import { create } from "./create";
import type { CreateOptions } from "./create";
import { del } from "./delete";
import { diff, update } from "./diff";
import type { SessionInputs, SessionOutputs } from "./fields";
import { read } from "./read";
import type { ReadResult } from "./read";

export type { ProviderDeps } from "./context";
export type { SessionInputs, SessionOutputs } from "./fields";

/**
 * The dynamic provider of BrowserSession: one method per engine call, each handing over to the file of
 * its operation (check.ts, diff.ts, create.ts, adopt.ts, read.ts, delete.ts) with the process's context.
 */
export class SessionProvider {
  readonly ctx: ProviderContext;

  constructor(deps: Partial<ProviderDeps> = {}) {
    this.ctx = new ProviderContext(deps);
  }

  /** Reads the provider's settings; `get` takes a key of the `remote-browser` namespace without prefix. */
  configure(get: (key: string) => string | undefined, env: NodeJS.ProcessEnv = process.env): void {
    this.ctx.configure(get, env);
  }

  check(olds: Record<string, unknown>, news: Record<string, unknown>): Promise<{ inputs: Record<string, unknown>; failures: Failure[] }> {
    return check(this.ctx, olds, news);
  }

  diff(_id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
    return diff(olds, news);
  }

  create(inputs: SessionInputs & Record<string, unknown>, opts?: CreateOptions): Promise<{ id: string; outs: SessionOutputs }> {
    return create(this.ctx, inputs, opts);
  }

  read(id: string, props: Record<string, unknown> = {}): Promise<ReadResult> {
    return read(this.ctx, id, props);
  }

  update(_id: string, olds: Record<string, unknown>, news: Record<string, unknown>): { outs: Record<string, unknown> } {
    return update(olds, news);
  }

  delete(id: string, props: Record<string, unknown>): Promise<void> {
    return del(this.ctx, id, props);
  }
}
