import * as pulumi from "@pulumi/pulumi";
import { BrowserSession } from "pulumi-remote-browser";

/** `count` review sessions in one stack, for the rate-limit benchmark. */
export = async () => {
  const config = new pulumi.Config();
  const count = config.requireNumber("count");
  const ids: pulumi.Output<string>[] = [];
  for (let i = 0; i < count; i++) ids.push(new BrowserSession(`review-${i}`, { browser: "chrome", url: config.require("url") }).vmId);
  return { count: ids.length };
};
