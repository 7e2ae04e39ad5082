/**
 * Pulumi runtime mocks for the SDK tests. The mocks replace the engine: every resource registration
 * reaches `newResource`, which answers with the inputs plus the outputs a test chose for it.
 *
 * The mock monitor itself drops the registration's options, so `useMockEngine` also records the raw
 * RegisterResourceRequest (what the real engine would receive: deleteBeforeReplace,
 * additionalSecretOutputs, importId and the serialised object), and does the one thing the engine does
 * with additionalSecretOutputs: it marks those outputs secret in its answer. Secretness seen by a test
 * therefore follows from what the SDK asked for, never from the mock's own choice.
 */
import * as pulumi from "@pulumi/pulumi";
import { beforeAll } from "vitest";
/* eslint-disable @typescript-eslint/no-explicit-any -- @pulumi/pulumi's generated gRPC request, which has no type */

export const PROJECT = "sdk-project";
export const STACK = "sdk-stack";

/** What the engine received for one resource registration. */
export interface Registration {
  type: string;
  name: string;
  custom: boolean;
  /** Import id of the request ("" when none). */
  importId: string;
  deleteBeforeReplace: boolean;
  additionalSecretOutputs: string[];
  /** The plugin version and download address the resource asks for ("" when none). */
  version: string;
  pluginDownloadURL: string;
  /** The provider reference (`<urn>::<id>`) the resource is registered with ("" when none). */
  provider: string;
  /** The resource's aliases: a URN, or the parts of a spec that are set. */
  aliases: Array<string | Record<string, unknown>>;
  /** URNs the resource depends on, as the engine is told. */
  dependencies: string[];
  /** The serialised inputs on the wire, before the mock deserialises them (secrets keep their wrapper). */
  wireObject: Record<string, unknown>;
  /** The inputs as the mock's newResource received them. */
  args: pulumi.runtime.MockResourceArgs;
}

export interface MockEngine {
  /** Every registration so far, in order. */
  registrations: Registration[];
  /** The registration of the resource named `name` (fails when there is none or more than one). */
  registration(name: string): Registration;
  /** Outputs the engine answers for a resource name, on top of its inputs. */
  outputs: Map<string, Record<string, unknown>>;
}

/**
 * The value of an Output once it resolves. A registration that fails (e.g. a provider that cannot be
 * serialised) leaves its Outputs pending forever, so this gives up after `ms` instead of hanging.
 */
export function value<T>(o: pulumi.Output<T>, ms = 5000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the Output did not resolve within ${ms} ms`)), ms);
    o.apply((v) => {
      clearTimeout(timer);
      resolve(v);
    });
  });
}

/** Whether an Output is secret, as its own promise reports it. */
export const secret = (o: pulumi.Output<unknown>): Promise<boolean> => pulumi.isSecret(o);

/**
 * Installs the mock engine in beforeAll of the calling file. `config` is set first, as
 * `pulumi.runtime.setAllConfig` would have it, with `secretKeys` marked secret.
 */
export function useMockEngine(setup: { config?: Record<string, string>; secretKeys?: string[] } = {}): MockEngine {
  const engine: MockEngine = {
    registrations: [],
    outputs: new Map(),
    registration(name) {
      const found = engine.registrations.filter((r) => r.name === name);
      if (found.length !== 1) throw new Error(`expected one registration of "${name}", found ${found.length}`);
      return found[0]!;
    },
  };
  const pending = new Map<string, Omit<Registration, "args">>();

  beforeAll(async () => {
    if (setup.config) pulumi.runtime.setAllConfig(setup.config, setup.secretKeys ?? []);
    await pulumi.runtime.setMocks(
      {
        call: (args) => {
          throw new Error(`unexpected invoke ${args.token}`);
        },
        newResource: (args) => {
          const request = pending.get(args.name);
          if (!request) throw new Error(`newResource for "${args.name}" without a recorded request`);
          pending.delete(args.name);
          engine.registrations.push({ ...request, args });
          const state: Record<string, unknown> = { ...args.inputs, ...(engine.outputs.get(args.name) ?? {}) };
          delete state.__provider;
          // The engine's treatment of additionalSecretOutputs: those outputs come back secret.
          for (const key of request.additionalSecretOutputs) {
            if (state[key] !== undefined) state[key] = pulumi.secret(state[key]);
          }
          const id = typeof state.vmId === "string" ? state.vmId : `${args.name}-id`;
          return { id, state };
        },
      },
      PROJECT,
      STACK,
      false,
    );
    const monitor = pulumi.runtime.getMonitor() as unknown as {
      registerResource(req: any, callback: (err: unknown, res: unknown) => void): Promise<void>;
    };
    const original = monitor.registerResource.bind(monitor);
    monitor.registerResource = (req, callback) => {
      // Recorded before the mock runs: registerResource calls newResource synchronously.
      pending.set(req.getName(), {
        type: req.getType(),
        name: req.getName(),
        custom: req.getCustom(),
        importId: req.getImportid(),
        deleteBeforeReplace: req.getDeletebeforereplace(),
        additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
        version: req.getVersion(),
        pluginDownloadURL: req.getPlugindownloadurl(),
        provider: req.getProvider(),
        aliases: [
          ...req.getAliasurnsList(),
          ...req
            .getAliasesList()
            .map(
              (a: { getUrn(): string; getSpec(): { toObject(): Record<string, unknown> } | undefined }) =>
                a.getUrn() || Object.fromEntries(Object.entries(a.getSpec()?.toObject() ?? {}).filter(([, v]) => v !== "" && v !== false && v !== undefined)),
            ),
        ],
        dependencies: req.getDependenciesList(),
        wireObject: req.getObject()?.toJavaScript() ?? {},
      });
      return original(req, callback);
    };
  });

  return engine;
}
