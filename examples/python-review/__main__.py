"""Review sessions of a pull request, from Python: one remote browser per browser, opening the pull
request's preview, with the share links as secret outputs.

Uses the remote-browser provider natively through the SDK that `pulumi package add` generates (module
`pulumi_remote_browser`): BrowserSession resources, and the get_images and get_usage data sources to pick
the browsers that can start and to check the account has room for them. See README.md."""

import pulumi
import pulumi_remote_browser as remote_browser

config = pulumi.Config()
wanted = config.get_object("browsers") or ["chrome", "firefox"]

# Only browsers the service can start right now; a disabled one would fail the preview anyway.
enabled = {image.id for image in remote_browser.get_images().images if image.enabled}
browsers = [b for b in wanted if b in enabled]
usage = remote_browser.get_usage()
if usage.running_sessions_remaining < len(browsers):
    pulumi.log.warn(
        f"the account has {usage.running_sessions_remaining} free running slots for {len(browsers)} sessions; "
        "set remote-browser:waitForCapacitySeconds to queue for one"
    )

sessions = {
    browser: remote_browser.BrowserSession(
        f"review-{browser}",
        browser=browser,
        url=config.get("previewUrl") or "https://example.com/",
        share_language=remote_browser.ShareLanguage.DE,
        ready_timeout_seconds=300,
    )
    for browser in browsers
}

pulumi.export("session_ids", {b: s.vm_id for b, s in sessions.items()})
pulumi.export("browser_names", {b: s.browser_name for b, s in sessions.items()})
# Secret: `pulumi stack output --show-secrets share_urls` shows the links.
pulumi.export("share_urls", pulumi.Output.secret({b: s.share_url for b, s in sessions.items()}))
