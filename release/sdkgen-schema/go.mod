// The schema loading both code generators share (../sdkgen, ../sdkgen-dotnet-java). It names no versions of
// its own: each generator's module pins Pulumi's (they differ), and builds this package with them.
module pulumi-remote-browser/sdkgen-schema

go 1.24
