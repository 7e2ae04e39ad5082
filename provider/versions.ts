import type { AccountAnswer, RemoteBrowserClient, V7AccountAnswer } from "../client";
import type { ApiVersion } from "../client";
import type { ProviderContext } from "./context";
import type { SessionInputs, SessionOutputs } from "./fields";
import { createV7, createV8 } from "./create";
import type { CreateOptions } from "./create";
import { deleteV7, deleteV8 } from "./delete";
import { adoptV7, adoptV8 } from "./adopt";
import { readV7, readV8 } from "./read";
import type { ReadResult } from "./read";

/**
 * Which operation each API version runs, in one table (the operations themselves are in the file of
 * their operation, each version's beside the other's). The configured version decides how new sessions
 * start and how check reads the account; a recorded session's own version decides how refresh and
 * destroy treat it. Version 7 has no status, end or image operation, no `egress` and no
 * `idempotencyKey`: its sessions are started and not waited for, refresh keeps what was recorded, and
 * destroy can only say that it cannot end them.
 */
export interface ApiVersionBehaviour {
  readonly name: ApiVersion;
  /** Whether check can consult the catalog (`GET /image`) and the residential allowance. */
  readonly hasCatalog: boolean;
  account(client: RemoteBrowserClient): Promise<AccountAnswer | V7AccountAnswer>;
  create(ctx: ProviderContext, inputs: SessionInputs & Record<string, unknown>, opts?: CreateOptions): Promise<{ id: string; outs: SessionOutputs }>;
  adopt(ctx: ProviderContext, inputs: SessionInputs & Record<string, unknown>, vmId: string, opts?: CreateOptions): Promise<{ id: string; outs: SessionOutputs }>;
  read(ctx: ProviderContext, id: string, props: Record<string, unknown>): Promise<ReadResult>;
  delete(ctx: ProviderContext, id: string, props: Record<string, unknown>): Promise<void>;
}

const v8: ApiVersionBehaviour = {
  name: "v8",
  hasCatalog: true,
  account: (client) => client.account(),
  create: createV8,
  adopt: adoptV8,
  read: readV8,
  delete: deleteV8,
};

const v7: ApiVersionBehaviour = {
  name: "v7",
  hasCatalog: false,
  account: (client) => client.v7.account(),
  create: createV7,
  adopt: adoptV7,
  read: readV7,
  delete: deleteV7,
};

const BEHAVIOURS: Record<ApiVersion, ApiVersionBehaviour> = { v8, v7 };

export function behaviourOf(version: ApiVersion): ApiVersionBehaviour {
  return BEHAVIOURS[version];
}
