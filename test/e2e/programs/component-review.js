// Uses the ReviewSessions component as a program in another language would: as a remote component,
// served by the resource plugin pulumi-resource-remote-browser that the engine finds on PATH. This is
// the shape of a generated SDK's class; it sets no secret outputs of its own, so whatever is secret in
// the outputs was made secret by the plugin.
const pulumi = require("@pulumi/pulumi");

class ReviewSessions extends pulumi.ComponentResource {
  constructor(name, args, opts) {
    const props = { ...args, sessionIds: undefined, shareUrls: undefined, browserNames: undefined };
    super("remote-browser:index:ReviewSessions", name, props, opts, true /* remote */);
  }
}

module.exports = async () => {
  const config = new pulumi.Config();
  const review = new ReviewSessions("review", {
    browsers: (config.get("browsers") ?? "chrome").split(","),
    url: config.get("url") ?? "https://example.com/",
    shareLanguage: config.get("shareLanguage"),
    country: config.get("country"),
  });
  return { sessionIds: review.sessionIds, shareUrls: review.shareUrls, browserNames: review.browserNames };
};
