import { loadSdkRuntimeDeferred } from "../engine-conventions/pulumiSdk";

// Imported first by the command line (cli.ts), before anything loads @pulumi/pulumi: see pulumiSdk.ts.
loadSdkRuntimeDeferred();
