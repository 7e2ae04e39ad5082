//go:build tools

// Package engine pins the Pulumi CLI that the project builds for its own use
// (the CLI is not downloadable on the project's machines, but its modules are).
package engine

import _ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
