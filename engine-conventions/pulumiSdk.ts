// Where this package loads the installed `@pulumi/pulumi` from: module by module, as the SDK itself resolves
// them (sdkRequire), or its runtime whole with two of its dependencies deferred (loadSdkRuntimeDeferred).
import Module, { createRequire } from "node:module";

/**
 * A module as the installed `@pulumi/pulumi` itself resolves it (`./provider`, `@grpc/grpc-js`, ...): the
 * plugin extends the SDK's own gRPC server and speaks to the engine with the SDK's own gRPC, which must be
 * the very copies the SDK loaded, wherever npm placed them.
 *
 * The release binary carries one bundled copy of each and no `node_modules`: its bundler puts
 * `release/bundledSdk.ts` in this module's place (release/bundle.ts).
 */
export function sdkRequire(id: string): unknown {
  return createRequire(require.resolve("@pulumi/pulumi/package.json"))(id);
}

/**
 * Loads `@pulumi/pulumi`'s runtime with two of its dependencies deferred to their first use. The runtime
 * requires both as it loads, for work a runner's program never asks of it: npm's Arborist (with pacote,
 * sigstore, tar: some 300 modules) serves `runtime.computeCodePaths` only, and TypeScript (9 MB) the closure
 * serialiser only (BrowserSession no longer runs it: sdk/browserSession.ts). Together they were a third of
 * the runner's start, about 0.35 s of CPU at every action.
 *
 * While the runtime loads, the module cache holds a stand-in for each. The two runtime modules that
 * require them keep the stand-in as their binding; its first use loads the real module, and every access
 * goes to it, so a program that does call `computeCodePaths` or serialise a closure gets the real thing.
 * The stand-ins leave the cache as soon as the runtime is loaded: any later `require` gets the real module.
 * A runtime that is loaded already, or that no longer requires these, is left as it is.
 *
 * `sdkPackageJson`: the copy of the SDK to load, by its package.json; default: the one this package resolves.
 */
export function loadSdkRuntimeDeferred(sdkPackageJson = require.resolve("@pulumi/pulumi/package.json")): void {
  const sdk = createRequire(sdkPackageJson);
  const runtimeEntry = sdk.resolve("./runtime");
  if (require.cache[runtimeEntry]) return;
  const deferred = [
    // codePaths.js binds it through `__importStar`, which takes a module that says `__esModule` as it is.
    { path: resolved(() => createRequire(sdk.resolve("./runtime/closure/codePaths")).resolve("@npmcli/arborist")), esModule: true },
    // parseFunction.js binds it with a plain require.
    { path: resolved(() => sdk.resolve("./typescript-shim")), esModule: false },
  ];
  const standIns = deferred.flatMap((d) => (d.path && !require.cache[d.path] ? [[d.path, standIn(d.path, d.esModule)] as const] : []));
  for (const [file, m] of standIns) require.cache[file] = m;
  try {
    sdk(runtimeEntry);
  } finally {
    for (const [file, m] of standIns) if (require.cache[file] === m) delete require.cache[file];
  }
}

/** An SDK release that lays out its files otherwise has nothing deferred. */
function resolved(resolve: () => string): string | undefined {
  try {
    return resolve();
  } catch {
    return undefined;
  }
}

/** A cache entry whose exports load `file` at their first use and hand every access on to it. */
function standIn(file: string, esModule: boolean): Module {
  let real: Record<PropertyKey, unknown> | undefined;
  const load = () => {
    if (!real) {
      if (require.cache[file] === entry) delete require.cache[file];
      real = require(file) as Record<PropertyKey, unknown>; // eslint-disable-line @typescript-eslint/no-require-imports -- the SDK's module, deferred to its first use
    }
    return real;
  };
  const entry = new Module(file);
  entry.filename = file;
  entry.loaded = true;
  entry.exports = new Proxy(
    {},
    {
      get: (_t, key) => (key === "__esModule" && esModule ? true : Reflect.get(load(), key)),
      has: (_t, key) => Reflect.has(load(), key),
    },
  );
  return entry;
}
