// sdkgen writes an SDK of a Pulumi package schema, as `pulumi package add` has a language host do it (bind
// the schema, then that language's code generator of github.com/pulumi/pulumi/pkg/v3), for machines without
// those language hosts. The .NET and Java generators are not part of pkg/v3.
//
//	sdkgen <schema.json> <out dir> [python|nodejs|go]   (python when not given)
package main

import (
	"fmt"
	"os"
	"path/filepath"

	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	python "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	sdkgenschema "pulumi-remote-browser/sdkgen-schema"
)

func main() {
	spec, err := sdkgenschema.Read(os.Args[1])
	if err != nil {
		panic(err)
	}
	pkg, err := sdkgenschema.Bind(spec)
	if err != nil {
		panic(err)
	}
	language := "python"
	if len(os.Args) > 3 {
		language = os.Args[3]
	}
	var files map[string][]byte
	switch language {
	case "python":
		files, err = python.GeneratePackage("pulumi-language-python", pkg, nil, sdkgenschema.NoLoader{})
	case "nodejs":
		files, err = nodejs.GeneratePackage("pulumi-language-nodejs", pkg, nil, nil, false, sdkgenschema.NoLoader{})
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
