// Stack outputs of every shape the state can hold, for checking the runner's reading of them against the
// CLI's own `pulumi stack output --json` (with and without --show-secrets).
const pulumi = require("@pulumi/pulumi");

module.exports = async () => {
  const part = new pulumi.ComponentResource("e2e:index:Part", "part");
  part.registerOutputs({});
  return {
    text: "plain text",
    number: 42.5,
    flag: true,
    nothing: null,
    list: [1, "two", pulumi.secret("three"), { four: pulumi.secret(4) }],
    nested: { open: "yes", closed: pulumi.secret("no"), deeper: { link: pulumi.secret("https://example.test/x") } },
    secretText: pulumi.secret("top secret"),
    secretObject: pulumi.secret({ inner: "value", list: [1, 2], again: pulumi.secret("twice") }),
    asset: new pulumi.asset.StringAsset("asset text"),
    archive: new pulumi.asset.AssetArchive({ "a.txt": new pulumi.asset.StringAsset("in the archive") }),
    resource: part,
    unicode: "ünïcødé ✓ \u2028",
    empty: {},
    emptyList: [],
  };
};
