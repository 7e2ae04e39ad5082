// One BrowserSession named `session` under each of two components of two types: two resources the engine
// tells apart by their parents' types, for the e2e tests of a session's owner.
const pulumi = require("@pulumi/pulumi");
const { BrowserSession } = require("pulumi-remote-browser");

class Review extends pulumi.ComponentResource {
  constructor(type, name, opts) {
    super(type, name, {}, opts);
    this.session = new BrowserSession("session", { browser: "chrome", url: "https://example.com/review" }, { parent: this });
    this.registerOutputs({ vmId: this.session.vmId });
  }
}

module.exports = async () => {
  const desktop = new Review("acme:review:Desktop", "desktop");
  const mobile = new Review("acme:review:Mobile", "mobile");
  return { desktop: desktop.session.vmId, mobile: mobile.session.vmId };
};
