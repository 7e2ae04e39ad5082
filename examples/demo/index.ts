import * as pulumi from "@pulumi/pulumi";
import { BrowserSession, getImages, getLocations, getUsage } from "pulumi-remote-browser";

/**
 * A review environment: one session per enabled browser (up to three), one of them with an exit
 * country and a German viewer, after checking that the account has room for them.
 *
 * The body is exported as a function so that the program runs both through the project's Automation API
 * runner and with `pulumi up` where a Pulumi install with its Node.js language host exists.
 */
export = async () => {
  const config = new pulumi.Config();
  const url = config.get("url") ?? "https://example.com/";

  const [{ images }, { locations }, usage] = await Promise.all([getImages(), getLocations(), getUsage()]);
  const browsers = images
    .filter((i) => i.enabled)
    .map((i) => i.id)
    .slice(0, 3);
  if (usage.runningSessionsRemaining < browsers.length) {
    throw new Error(`the account has ${usage.runningSessionsRemaining} free running slot(s) but this review needs ${browsers.length}`);
  }
  const country = locations.find((l) => l.code === "de")?.code ?? locations[0]?.code;

  const sessions = browsers.map(
    (browser, i) =>
      new BrowserSession(`review-${browser}`, {
        browser,
        url,
        ...(i === 0 ? { country, shareLanguage: "de" as const } : { shareLanguage: "en" as const }),
        callbackUrl: "https://example.com/review-done",
      }),
  );

  return {
    browsers,
    sessions: sessions.map((s) => ({
      vmId: s.vmId,
      browser: s.browser,
      browserName: s.browserName,
      status: s.status,
      country: s.country,
      locationApplied: s.locationApplied,
    })),
    // Secret: the share links are passwords to the sessions.
    shareUrls: pulumi.secret(pulumi.all(sessions.map((s) => s.shareUrl))),
    runningSlotsBefore: usage.runningSessionsRemaining,
  };
};
