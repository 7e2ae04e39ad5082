/** Stack config and environment for the data-source tests, restored after each test. */
import * as pulumi from "@pulumi/pulumi";
import { afterAll, afterEach, beforeAll } from "vitest";
/* eslint-disable @typescript-eslint/no-explicit-any -- a rejection's own fields (code, cause...), read by the tests that expect them */

/** Every REMOTE_BROWSER_* variable is a config fallback (key, address, version, timeouts, ...). */
const isFallbackVar = (name: string) => name.startsWith("REMOTE_BROWSER_");

/** Replaces the stack's `remote-browser` config (keys without the namespace); the API key is marked secret. */
export function setStackConfig(values: { apiKey?: string; baseUrl?: string; apiVersion?: string }): void {
  const config: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) if (v !== undefined) config[`remote-browser:${k}`] = v;
  pulumi.runtime.setAllConfig(config, ["remote-browser:apiKey"]);
}

/**
 * Keeps the developer's own REMOTE_BROWSER_* variables out of the calling file's tests: clears them
 * before the first test, clears them and the stack config after each test, and puts them back at the end.
 */
export function isolateConfig(): void {
  const saved: Record<string, string> = {};
  const clear = () => {
    for (const name of Object.keys(process.env)) if (isFallbackVar(name)) delete process.env[name];
  };
  beforeAll(() => {
    for (const [name, v] of Object.entries(process.env)) if (isFallbackVar(name) && v !== undefined) saved[name] = v;
    clear();
  });
  afterEach(() => {
    clear();
    setStackConfig({});
  });
  afterAll(() => {
    clear();
    Object.assign(process.env, saved);
  });
}

/** The error `promise` rejects with (fails the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<Error & Record<string, any>> {
  try {
    await promise;
  } catch (err) {
    return err as Error & Record<string, any>;
  }
  throw new Error("expected a rejection, but the call succeeded");
}
