// sdkgen writes an SDK of a Pulumi package schema, as `pulumi package add` has a language host do it (bind
// the schema, then that language's code generator of github.com/pulumi/pulumi/pkg/v3), for machines without
// those language hosts. The .NET and Java generators are not part of pkg/v3.
//
//	sdkgen <schema.json> <out dir> [python|nodejs|go]   (python when not given)
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	python "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// noLoader: the schema references no other package.
type noLoader struct{}

var errNone = errors.New("no other packages")

func (noLoader) LoadPackage(string, *semver.Version) (*schema.Package, error) { return nil, errNone }
func (noLoader) LoadPackageV2(context.Context, *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, errNone
}
func (noLoader) LoadPackageReference(string, *semver.Version) (schema.PackageReference, error) {
	return nil, errNone
}
func (noLoader) LoadPackageReferenceV2(context.Context, *schema.PackageDescriptor) (schema.PackageReference, error) {
	return nil, errNone
}

func main() {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(data, &spec); err != nil {
		panic(err)
	}
	pkg, diags, err := schema.BindSpec(spec, noLoader{}, schema.ValidationOptions{AllowDanglingReferences: true})
	if err != nil {
		panic(err)
	}
	if diags.HasErrors() {
		panic(diags)
	}
	language := "python"
	if len(os.Args) > 3 {
		language = os.Args[3]
	}
	var files map[string][]byte
	switch language {
	case "python":
		files, err = python.GeneratePackage("pulumi-language-python", pkg, nil, noLoader{})
	case "nodejs":
		files, err = nodejs.GeneratePackage("pulumi-language-nodejs", pkg, nil, nil, false, noLoader{})
	case "go":
		files, err = gogen.GeneratePackage("pulumi-language-go", pkg, nil)
	default:
		err = fmt.Errorf("no code generator for %q (python, nodejs, go)", language)
	}
	if err != nil {
		panic(err)
	}
	for name, content := range files {
		out := filepath.Join(os.Args[2], name)
		_ = os.MkdirAll(filepath.Dir(out), 0o755)
		if err := os.WriteFile(out, content, 0o644); err != nil {
			panic(err)
		}
		fmt.Println(out)
	}
}
