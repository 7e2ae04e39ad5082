import type { AccountAnswer, ApiVersion, RemoteBrowserClient, V7AccountAnswer } from "../client";

/**
 * What differs between the API versions beyond the operations, which keep each version's way beside the
 * other's in the file of their operation (create.ts, adopt.ts, read.ts, delete.ts). The configured version
 * decides how new sessions start and how check reads the account; a recorded session's own version
 * decides how refresh and destroy treat it. Version 7 has no status, end or image operation, no `egress`
 * and no `idempotencyKey`: its sessions are started and not waited for, refresh keeps what was recorded,
 * and destroy can only say that it cannot end them.
 */
export interface ApiVersionBehaviour {
  readonly name: ApiVersion;
  /** Whether check can consult the catalog (`GET /image`) and the residential allowance. */
  readonly hasCatalog: boolean;
  account(client: RemoteBrowserClient): Promise<AccountAnswer | V7AccountAnswer>;
}

const BEHAVIOURS: Record<ApiVersion, ApiVersionBehaviour> = {
  v8: { name: "v8", hasCatalog: true, account: (client) => client.account() },
  v7: { name: "v7", hasCatalog: false, account: (client) => client.v7.account() },
};

export function behaviourOf(version: ApiVersion): ApiVersionBehaviour {
  return BEHAVIOURS[version];
}
