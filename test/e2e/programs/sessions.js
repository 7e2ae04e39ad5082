// BrowserSessions driven by stack config, for the e2e tests.
const pulumi = require("@pulumi/pulumi");
const { BrowserSession, getUsage, getUsageOutput } = require("pulumi-remote-browser");

module.exports = async () => {
  const config = new pulumi.Config();
  const browsers = (config.get("browsers") ?? "chrome").split(",").filter(Boolean);
  const count = config.getNumber("count") ?? 1;
  const importId = config.get("importId");
  // Resource options, for the options table's tests: a name prefix (and the former one, as an alias),
  // protect, retainOnDelete and ignoreChanges (a comma-separated list).
  const prefix = config.get("namePrefix") ?? "review";
  const aliasOf = config.get("aliasOf");
  const ignoreChanges = config.get("ignoreChanges");
  // Reads the account's meter the way a per-PR program checks its capacity first.
  const usage = config.getBoolean("useUsage") ? await getUsage() : undefined;
  const sessions = {};
  for (const browser of browsers) {
    for (let i = 0; i < count; i++) {
      const key = count > 1 ? `${browser}-${i}` : browser;
      sessions[key] = new BrowserSession(
        `${prefix}-${key}`,
        {
          browser,
          ...(importId
            ? // An imported session is declared with the url it was started with, when one is given.
              { url: config.get("url") }
            : {
                url: config.get("url") ?? "https://example.com/",
                country: config.get("country"),
                shareLanguage: config.get("shareLanguage"),
                requireLocation: config.getBoolean("requireLocation"),
                readyTimeoutSeconds: config.getNumber("readyTimeoutSeconds"),
                waitForCapacitySeconds: config.getNumber("waitForCapacitySeconds"),
              }),
        },
        {
          import: importId,
          protect: config.getBoolean("protect"),
          retainOnDelete: config.getBoolean("retainOnDelete"),
          ignoreChanges: ignoreChanges ? ignoreChanges.split(",") : undefined,
          aliases: aliasOf ? [{ name: `${aliasOf}-${key}` }] : undefined,
          replaceOnChanges: config.get("replaceOnChanges") ? config.get("replaceOnChanges").split(",") : undefined,
        },
      );
    }
  }
  // Read after the sessions started (`dependsOn`), as Pulumi's own functions can be: it counts them.
  const usageAfter = config.getBoolean("usageAfter") ? getUsageOutput({ dependsOn: Object.values(sessions), parent: Object.values(sessions)[0] }) : undefined;
  const pick = (f) => Object.fromEntries(Object.entries(sessions).map(([b, s]) => [b, f(s)]));
  return {
    vmIds: pick((s) => s.vmId),
    statuses: pick((s) => s.status),
    locationApplied: pick((s) => s.locationApplied),
    shareUrls: pick((s) => s.shareUrl),
    runningSlots: usage?.runningSessionsRemaining,
    runningAfter: usageAfter?.runningSessionsUsed,
  };
};
