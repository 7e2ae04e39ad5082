// Sessions at the top of the stack and under a component, for the progress test: each one's status
// lines must land on its own URN, whose type chain includes the component's type.
const pulumi = require("@pulumi/pulumi");
const { BrowserSession } = require("pulumi-remote-browser");

class Review extends pulumi.ComponentResource {
  constructor(name, browsers, opts) {
    super("e2e:index:Review", name, {}, opts);
    this.sessions = browsers.map((browser) => new BrowserSession(`${name}-${browser}`, { browser }, { parent: this }));
    this.registerOutputs({});
  }
}

module.exports = async () => {
  const config = new pulumi.Config();
  const top = new BrowserSession("top", {
    browser: "chrome",
    waitForCapacitySeconds: config.getNumber("waitForCapacitySeconds"),
  });
  const review = config.getBoolean("component") === false ? undefined : new Review("review", ["chrome", "firefox"]);
  return { vmIds: pulumi.all([top.vmId, ...(review?.sessions ?? []).map((s) => s.vmId)]) };
};
