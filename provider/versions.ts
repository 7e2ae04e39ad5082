import type { AccountAnswer, RemoteBrowserClient, V7AccountAnswer, V7CreateRequest } from "../client";
import type { ApiVersion } from "../client";
import type { ProviderContext } from "./context";
import { warn } from "./diagnostics";
import type { SessionInputs, SessionOutputs } from "./fields";
import { apiRequest, createV8 } from "./create";
import type { CreateOptions } from "./create";
import { deleteV8 } from "./delete";
import { ImportError } from "./errors";
import { adoptV8 } from "./adopt";
import { inputsFrom, mirrorInputs } from "./outputs";
import { readV8 } from "./read";
import type { ReadResult } from "./read";

/**
 * What differs between the API versions, in one place. The configured version decides how new sessions
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
  async create(ctx, inputs, opts = {}) {
    const { egress: _e, idempotencyKey: _k, ...rest } = apiRequest(inputs);
    const owner = await ctx.owner();
    const answer = await ctx.api().v7.createSession(rest as V7CreateRequest);
    await warn(
      opts.urn,
      `BrowserSession ${answer.vmId} was started with API version 7, which has no status or end operation: ` +
        "it was not waited for, refresh cannot see it and destroy cannot end it (use apiVersion v8)",
    );
    return {
      id: answer.vmId,
      outs: {
        ...mirrorInputs(inputs),
        vmId: answer.vmId,
        shareUrl: answer.shareUrl,
        shareUrlPath: answer.shareUrlPath,
        status: "starting",
        apiVersion: "v7",
        owner,
      },
    };
  },
  async adopt(_ctx, _inputs, vmId) {
    throw new ImportError(`importing ${vmId}: API version 7 has no status operation`, { vmId });
  },
  async read(_ctx, id, props) {
    await warn(undefined, `BrowserSession ${id}: API version 7 has no status operation; refresh keeps the recorded state`);
    return { id, props, inputs: inputsFrom(props) };
  },
  async delete(_ctx, id) {
    await warn(undefined, `BrowserSession ${id} was started with API version 7, which cannot end sessions: end it in the service's console`);
  },
};

const BEHAVIOURS: Record<ApiVersion, ApiVersionBehaviour> = { v8, v7 };

export function behaviourOf(version: ApiVersion): ApiVersionBehaviour {
  return BEHAVIOURS[version];
}
