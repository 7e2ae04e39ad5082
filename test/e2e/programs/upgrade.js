// The stack of the upgrade test: the sessions a user of release 0.1.0 would hold. Recorded once with that
// release (test/e2e/upgrade/), then refreshed, previewed, updated and destroyed by every later version.
// It must keep to what 0.1.0 offered, so that both versions read it the same way.
const pulumi = require("@pulumi/pulumi");
const { BrowserSession } = require("pulumi-remote-browser");

// The component as another language declares it: a remote component served by the package's plugin.
class ReviewSessions extends pulumi.ComponentResource {
  constructor(name, args, opts) {
    super("remote-browser:index:ReviewSessions", name, { ...args, sessionIds: undefined, shareUrls: undefined, browserNames: undefined }, opts, true);
  }
}

module.exports = async () => {
  const config = new pulumi.Config();
  const readyTimeoutSeconds = config.getNumber("readyTimeoutSeconds") ?? 120;
  // Every optional input set.
  const full = new BrowserSession("full", {
    browser: "chrome",
    url: "https://example.com/full",
    language: "de",
    layout: "de",
    country: "de",
    egress: "residential",
    shareLanguage: "de",
    callbackUrl: "https://example.com/done",
    idempotencyKey: "upgrade-fixture-full-1",
    readyTimeoutSeconds,
    requireLocation: false,
    waitForCapacitySeconds: 30,
  });
  // Every default.
  const plain = new BrowserSession("plain", { browser: "firefox" });
  const review = new ReviewSessions("review", { browsers: ["edge"], url: "https://example.com/review", readyTimeoutSeconds });
  return {
    vmIds: { full: full.vmId, plain: plain.vmId, review: review.sessionIds },
    shareUrls: { full: full.shareUrl, plain: plain.shareUrl, review: review.shareUrls },
  };
};
