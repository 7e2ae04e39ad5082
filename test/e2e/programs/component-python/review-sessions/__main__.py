"""ReviewSessions from Python: one remote browser per browser, opening the pull request's preview, with
the share links as secret outputs -- the component of the remote-browser package through the SDK that
`pulumi package add` generates (module `pulumi_remote_browser`). Run by test/e2e/component.test.ts."""

import pulumi
import pulumi_remote_browser as remote_browser

config = pulumi.Config()

review = remote_browser.ReviewSessions(
    "review",
    browsers=["chrome", "firefox"],
    url=config.get("previewUrl") or "https://example.com/",
    share_language=remote_browser.ShareLanguage.DE,
    ready_timeout_seconds=300,
)

pulumi.export("session_ids", review.session_ids)
pulumi.export("browser_names", review.browser_names)
# Secret: `pulumi stack output --show-secrets share_urls` shows the links.
pulumi.export("share_urls", review.share_urls)
