// sdkgen-dotnet-java writes the .NET or the Java SDK of a Pulumi package schema with the code generators of
// those languages' own Pulumi language hosts (github.com/pulumi/pulumi-dotnet/pulumi-language-dotnet and
// github.com/pulumi/pulumi-java/pkg: they are not part of github.com/pulumi/pulumi/pkg/v3, whose Python,
// Node.js and Go generators ../sdkgen runs), doing what each host's GeneratePackage does
// for `pulumi package add`, for machines without those hosts. Its own module: both pin Pulumi versions of
// their own, older than the CLI's.
//
//	sdkgen-dotnet-java <schema.json> <out dir> dotnet <logo.png>
//	sdkgen-dotnet-java <schema.json> <out dir> java
package main

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"net/http"
	"os"
	"path/filepath"

	dotnet "github.com/pulumi/pulumi-dotnet/pulumi-language-dotnet/v3/codegen"
	java "github.com/pulumi/pulumi-java/pkg/codegen/java"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	sdkgenschema "pulumi-remote-browser/sdkgen-schema"
)

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

// offlineLogo: the .NET generator downloads the package's logo (logo.png of the NuGet package) from the
// schema's logoUrl. The logoUrl names a file of the repository; the generator is given that file, and reads it
// instead of the network (the machines this runs on may have none, and a release must not depend on it).
func offlineLogo(pkg *schema.Package, file string) error {
	abs, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return err
	}
	if _, err := png.DecodeConfig(bytes.NewReader(data)); err != nil {
		return fmt.Errorf("the logo %s is not a PNG image: %w", abs, err)
	}
	http.DefaultTransport.(*http.Transport).RegisterProtocol("file", http.NewFileTransport(http.Dir("/")))
	pkg.LogoURL = "file://" + filepath.ToSlash(abs)
	return nil
}

func main() {
	if len(os.Args) < 4 || len(os.Args) > 5 || (os.Args[3] == "dotnet") != (len(os.Args) == 5) {
		fail(errors.New("usage: sdkgen-dotnet-java <schema.json> <out dir> dotnet <logo.png> | java"))
	}
	spec, err := sdkgenschema.Read(os.Args[1])
	if err != nil {
		fail(err)
	}
	language := os.Args[3]
	if language == "java" {
		// As the Java host does before binding: types whose names differ only in case become one.
		deduped, diags, err := java.DeduplicateTypes(spec)
		if err != nil {
			fail(err)
		}
		if diags.HasErrors() {
			fail(diags)
		}
		spec = deduped
	}
	pkg, err := sdkgenschema.Bind(spec)
	if err != nil {
		fail(err)
	}
	var files map[string][]byte
	switch language {
	case "dotnet":
		if err := offlineLogo(pkg, os.Args[4]); err != nil {
			fail(err)
		}
		files, err = dotnet.GeneratePackage("pulumi-language-dotnet", pkg, nil, nil)
	case "java":
		files, err = java.GeneratePackage("pulumi-language-java", pkg, nil, nil, false, false)
	default:
		err = fmt.Errorf("no code generator for %q (dotnet, java)", language)
	}
	if err != nil {
		fail(err)
	}
	for name, content := range files {
		out := filepath.Join(os.Args[2], name)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			fail(err)
		}
		if err := os.WriteFile(out, content, 0o644); err != nil {
			fail(err)
		}
		fmt.Println(out)
	}
}
