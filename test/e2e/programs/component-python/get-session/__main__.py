"""Reads a session by its id with the generated SDK's BrowserSession.get (the engine's Read by id), as a
program that watches a session another stack owns would. Run by test/e2e/component.test.ts."""

import pulumi
import pulumi_remote_browser as remote_browser

config = pulumi.Config()
seen = remote_browser.BrowserSession.get("seen", config.require("vmId"))

pulumi.export("browser", seen.browser)
pulumi.export("status", seen.status)
pulumi.export("share_url", seen.share_url)
