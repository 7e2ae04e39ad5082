// Run by test/hosts/go.test.ts: a session, the ReviewSessions component and a data source through the
// release's Go module, whose plugin the engine downloads by itself.
package main

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/remote-browser/pulumi-remote-browser/sdk/go/remotebrowser"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		url := pulumi.String("https://hosts.preview.example.com/")
		session, err := remotebrowser.NewBrowserSession(ctx, "session", &remotebrowser.BrowserSessionArgs{Browser: pulumi.String("chrome"), Url: url})
		if err != nil {
			return err
		}
		review, err := remotebrowser.NewReviewSessions(ctx, "review", &remotebrowser.ReviewSessionsArgs{Browsers: []string{"firefox"}, Url: url})
		if err != nil {
			return err
		}
		images, err := remotebrowser.GetImages(ctx)
		if err != nil {
			return err
		}
		ids := []string{}
		for _, image := range images.Images {
			ids = append(ids, image.Id)
		}
		ctx.Export("sessionId", session.VmId)
		ctx.Export("shareUrl", session.ShareUrl)
		ctx.Export("reviewSessionIds", review.SessionIds)
		ctx.Export("reviewShareUrls", review.ShareUrls)
		ctx.Export("images", pulumi.ToStringArray(ids))
		return nil
	})
}
