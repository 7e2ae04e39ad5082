import * as pulumi from "@pulumi/pulumi";
import { BrowserSession } from "pulumi-remote-browser";

/** One pull request's review session, for the wave benchmark. */
export = async () => {
  const config = new pulumi.Config();
  const session = new BrowserSession("review", {
    browser: "chrome",
    url: config.require("url"),
    waitForCapacitySeconds: config.requireNumber("waitForCapacitySeconds"),
  });
  return { vmId: session.vmId };
};
