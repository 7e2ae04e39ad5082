// The stack of the ReviewSessions upgrade test: a component whose sessions were dynamic resources (the
// releases before the sessions became the plugin's own BrowserSession). Recorded once with such a release
// (test/e2e/upgrade/), then refreshed, previewed, updated and destroyed by every later version.
const pulumi = require("@pulumi/pulumi");

// The component as another language declares it: a remote component served by the package's plugin.
class ReviewSessions extends pulumi.ComponentResource {
  constructor(name, args, opts) {
    super("remote-browser:index:ReviewSessions", name, { ...args, sessionIds: undefined, shareUrls: undefined, browserNames: undefined }, opts, true);
  }
}

module.exports = async () => {
  const config = new pulumi.Config();
  const review = new ReviewSessions("review", {
    browsers: ["chrome", "firefox"],
    url: "https://pr-26.preview.example.com/",
    shareLanguage: "de",
    readyTimeoutSeconds: config.getNumber("readyTimeoutSeconds") ?? 120,
  });
  return { sessionIds: review.sessionIds, shareUrls: review.shareUrls, browserNames: review.browserNames };
};
