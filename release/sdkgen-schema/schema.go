// Package sdkgenschema reads and binds a Pulumi package schema as a language host does before it generates
// an SDK, for the code generators of the release (../sdkgen and ../sdkgen-dotnet-java).
package sdkgenschema

import (
	"context"
	"encoding/json"
	"errors"
	"os"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// NoLoader is the loader of a schema that references no other package: binding must not start plugins.
type NoLoader struct{}

var errNone = errors.New("no other packages")

func (NoLoader) LoadPackage(string, *semver.Version) (*schema.Package, error) { return nil, errNone }
func (NoLoader) LoadPackageV2(context.Context, *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, errNone
}
func (NoLoader) LoadPackageReference(string, *semver.Version) (schema.PackageReference, error) {
	return nil, errNone
}
func (NoLoader) LoadPackageReferenceV2(context.Context, *schema.PackageDescriptor) (schema.PackageReference, error) {
	return nil, errNone
}

// Read reads the schema file.
func Read(file string) (*schema.PackageSpec, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	spec := &schema.PackageSpec{}
	if err := json.Unmarshal(data, spec); err != nil {
		return nil, err
	}
	return spec, nil
}

// Bind binds the schema; its diagnostics' errors are an error.
func Bind(spec *schema.PackageSpec) (*schema.Package, error) {
	pkg, diags, err := schema.BindSpec(*spec, NoLoader{}, schema.ValidationOptions{AllowDanglingReferences: true})
	if err != nil {
		return nil, err
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return pkg, nil
}
