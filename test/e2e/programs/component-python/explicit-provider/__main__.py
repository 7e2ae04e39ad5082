"""A session of a second account beside the stack's own, through an explicit provider of the generated SDK
(`pulumi:providers:remote-browser`), and that account's meter read through the same provider. Run by
test/e2e/component.test.ts."""

import pulumi
import pulumi_remote_browser as remote_browser

config = pulumi.Config()
second = remote_browser.Provider(
    "second-account",
    api_key=config.require_secret("secondKey"),
    base_url=config.require("secondBaseUrl"),
)
own = remote_browser.BrowserSession("own", browser="chrome", url="https://example.com/")
theirs = remote_browser.BrowserSession(
    "theirs",
    browser="firefox",
    url="https://example.com/",
    opts=pulumi.ResourceOptions(provider=second),
)
# After their session runs: the meter then counts it.
usage = theirs.vm_id.apply(lambda _: remote_browser.get_usage(opts=pulumi.InvokeOptions(provider=second)))

pulumi.export("own_id", own.vm_id)
pulumi.export("their_id", theirs.vm_id)
pulumi.export("their_running", usage.apply(lambda u: u.running_sessions_used))
pulumi.export("their_limit", usage.apply(lambda u: u.running_session_limit))
