//go:build tools

// Package languageyaml pins the Pulumi YAML language host that the project builds for its own use
// (the host is not downloadable on the project's machines, but its modules are).
package languageyaml

import _ "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml"
