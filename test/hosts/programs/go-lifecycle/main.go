// Run by test/hosts/go.test.ts on an account whose running limit is 1: a plain `pulumi up` after the
// service ended the session, and `pulumi up --replace` of it.
package main

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/remote-browser/pulumi-remote-browser/sdk/go/remotebrowser"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		session, err := remotebrowser.NewBrowserSession(ctx, "session", &remotebrowser.BrowserSessionArgs{
			Browser: pulumi.String("chrome"),
			Url:     pulumi.String("https://hosts.preview.example.com/"),
		})
		if err != nil {
			return err
		}
		ctx.Export("sessionId", session.VmId)
		return nil
	})
}
