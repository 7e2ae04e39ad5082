// One BrowserSession whose arguments come verbatim from the `args` config value (JSON).
const pulumi = require("@pulumi/pulumi");
const { BrowserSession } = require("pulumi-remote-browser");

module.exports = async () => {
  const session = new BrowserSession("session", JSON.parse(new pulumi.Config().require("args")));
  return { vmId: session.vmId };
};
