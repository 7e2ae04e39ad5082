import { reviewProgram } from "pulumi-remote-browser";

/**
 * The review environment of one pull request: one browser session per browser, each opening the pull
 * request's preview, in a stack of its own (`pr-<number>`). The program ships in the package
 * (`reviewProgram`, sdk/reviewProgram.ts: its stack configuration, checks and outputs), so that the
 * review-sessions workflows run the very program this folder runs with `pulumi up`. To change what it
 * does, copy that file here in place of this line.
 */
export = reviewProgram;
