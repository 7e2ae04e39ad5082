import { RemoteBrowserClient } from "../client";
import type { ProviderConfig } from "./config";

/**
 * The client for these settings: the one place a provider or data source builds one. Apart from the
 * settings (core/config.ts) so that what only reads them -- a program declaring sessions, the runner --
 * does not load the client (undici, zod and every schema), a third of their start.
 */
export function clientForConfig(cfg: ProviderConfig): RemoteBrowserClient {
  return new RemoteBrowserClient({ baseUrl: cfg.baseUrl, apiKey: cfg.apiKey, attemptTimeoutMs: cfg.requestTimeoutSeconds * 1000 });
}
