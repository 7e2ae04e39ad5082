import { loadSdkRuntimeDeferred } from "../engine-conventions/deferredSdkLoad";

// Imported first by the command line (cli.ts), before anything loads @pulumi/pulumi: see deferredSdkLoad.ts.
loadSdkRuntimeDeferred();
