"""Sessions from Python, run by test/hosts/python-identity.test.ts, for a session's owner: one resource of
one stack. By default one BrowserSession `session` (two stacks of this project and stack name on two
backends; every kind of replacement). With `parents`, two BrowserSessions named `session` with the same
inputs, one under a component of type acme:review:Desktop and one under acme:review:Mobile: their URNs
differ only by the parent's type."""

import pulumi
import pulumi_remote_browser as remote_browser

config = pulumi.Config()
url = config.get("url") or "https://identity.preview.example.com/"


class Review(pulumi.ComponentResource):
    """A component of the type given, with one child session."""

    def __init__(self, type_: str, name: str):
        super().__init__(type_, name)
        self.session = remote_browser.BrowserSession(
            "session",
            browser="chrome",
            url=url,
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.register_outputs({"session_id": self.session.vm_id})


if config.get_bool("parents"):
    desktop = Review("acme:review:Desktop", "desktop")
    mobile = Review("acme:review:Mobile", "mobile")
    pulumi.export("desktopId", desktop.session.vm_id)
    pulumi.export("mobileId", mobile.session.vm_id)
else:
    session = remote_browser.BrowserSession("session", browser="chrome", url=url)
    pulumi.export("sessionId", session.vm_id)
