import * as rb from "@remote-browser/pulumi";

// Run by test/hosts/nodejs.test.ts: a session, the ReviewSessions component and a data source through the
// release's Node.js SDK, whose plugin the engine downloads by itself.
const url = "https://hosts.preview.example.com/";
const session = new rb.BrowserSession("session", { browser: "chrome", url });
const review = new rb.ReviewSessions("review", { browsers: ["firefox"], url, shareLanguage: "de" });

export const sessionId = session.vmId;
export const shareUrl = session.shareUrl;
export const reviewSessionIds = review.sessionIds;
export const reviewShareUrls = review.shareUrls;
export const images = rb.getImagesOutput().images.apply((images) => images.map((i) => i.id));
