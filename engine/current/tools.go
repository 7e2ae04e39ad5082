//go:build tools

// Package current pins the newest Pulumi CLI that the project's "current" test cell runs under,
// kept in its own module graph so that it does not move the default pin in ../go.mod.
package current

import _ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
