// One BrowserSession per element of the `cases` config value (a JSON array of argument sets), so that one
// engine run checks many argument sets.
const pulumi = require("@pulumi/pulumi");
const { BrowserSession } = require("pulumi-remote-browser");

module.exports = async () => {
  const cases = JSON.parse(new pulumi.Config().require("cases"));
  const sessions = cases.map((args, i) => new BrowserSession(`case-${i}`, args));
  return { vmIds: sessions.map((s) => s.vmId) };
};
