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
  // With `secondAccount` (a file holding another account's key and the service address), the component
  // gets an explicit provider of that account, as `opts.providers` of a generated SDK passes it.
  const second = config.get("secondAccount");
  let opts;
  if (second) {
    const { apiKey, baseUrl } = JSON.parse(require("node:fs").readFileSync(second, "utf8"));
    opts = { providers: [new pulumi.ProviderResource("remote-browser", "second-account", { apiKey: pulumi.secret(apiKey), baseUrl })] };
  }
  const review = new ReviewSessions(
    "review",
    {
      browsers: (config.get("browsers") ?? "chrome").split(","),
      url: config.get("url") ?? "https://example.com/",
      shareLanguage: config.get("shareLanguage"),
      country: config.get("country"),
    },
    opts,
  );
  return { sessionIds: review.sessionIds, shareUrls: review.shareUrls, browserNames: review.browserNames };
};
