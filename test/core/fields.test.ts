import { describe, expect, it } from "vitest";
import { validateCreate } from "../../emulator/validate";
import { staticFailures, diff, API_INPUTS, INPUTS, IN_PLACE_INPUTS, OUTPUTS, PROVIDER_INPUTS, REPLACING_INPUTS, SECRET_OUTPUTS } from "../../core/declaration";
import { COMPONENTS } from "../../plugin/packageSchema";
import { typeToken } from "../../plugin/identity";
import { useEmulator } from "../helpers/emulator";

const t = useEmulator();

describe("the field table is the one declaration", () => {
  it("splits the inputs into what is sent to the service (replaced) and what the provider reads (in place)", () => {
    // The one input sent to the service that changes in place: the share link's language, a segment of the link.
    expect([...API_INPUTS].filter((k) => k !== "shareLanguage").sort()).toEqual([...REPLACING_INPUTS].sort());
    expect([...PROVIDER_INPUTS, "shareLanguage"].sort()).toEqual([...IN_PLACE_INPUTS].sort());
    expect([...API_INPUTS, ...PROVIDER_INPUTS].sort()).toEqual(Object.keys(INPUTS).sort());
  });

  it("decides diff: every replacing field replaces, every in-place field updates", () => {
    const olds = { browser: "chrome" };
    for (const field of REPLACING_INPUTS) {
      expect(diff({ olds, news: { ...olds, [field]: field === "browser" ? "firefox" : "x" } }).replaces).toEqual([field]);
    }
    for (const field of IN_PLACE_INPUTS) {
      const d = diff({ olds, news: { ...olds, [field]: 1 } });
      expect(d).toEqual({ changes: true, replaces: [], updates: [field], detailed: { [field]: "update" }, deleteBeforeReplace: true });
    }
  });

  it("decides the secret outputs, and the component schema's secret marks follow them", () => {
    expect([...SECRET_OUTPUTS].sort()).toEqual(["shareUrl", "shareUrlPath"]);
    const review = COMPONENTS.find((c) => typeToken(c.component.name) === "remote-browser:index:ReviewSessions")!;
    expect(review.secretOutputs).toEqual(["shareUrls"]);
  });

  it("gives every field a doc and every output a type", () => {
    for (const f of [...Object.values(INPUTS), ...Object.values(OUTPUTS)]) expect(f.doc.length).toBeGreaterThan(10);
  });
});

/**
 * Preview must refuse exactly what the service refuses. Each row is one input on top of a valid request;
 * the emulator's own validation (the service's rules) and the provider's check must agree on it.
 */
const ROWS: Array<[version: "v8" | "v7", field: string, value: unknown]> = [
  ["v8", "language", "en"],
  ["v8", "language", "eng"],
  ["v8", "language", "de-CH"],
  ["v8", "language", "zh_Hant_TW"],
  ["v8", "language", "english"],
  ["v8", "language", "e"],
  ["v8", "layout", "us"],
  ["v8", "layout", "dvorak"],
  ["v8", "layout", "de-ch-nodeadkeys"],
  ["v8", "layout", "1"],
  ["v8", "country", "us"],
  ["v8", "country", "us-dal"],
  ["v8", "country", "auto"],
  ["v8", "country", "US"],
  ["v8", "country", "xx"],
  ["v8", "country", ""],
  ["v8", "egress", "residential"],
  ["v8", "egress", "datacenter"],
  ["v8", "shareLanguage", "ja"],
  ["v8", "shareLanguage", "zh"],
  ["v8", "callbackUrl", "https://example.com/done"],
  ["v8", "callbackUrl", "ftp://example.com/"],
  ["v8", "callbackUrl", `https://example.com/${"a".repeat(2_000)}`],
  ["v8", "url", `https://example.com/${"a".repeat(9_980)}`],
  ["v8", "url", `https://example.com/${"a".repeat(10_000)}`],
  ["v8", "idempotencyKey", "k".repeat(128)],
  ["v8", "idempotencyKey", "k".repeat(129)],
  ["v8", "idempotencyKey", ""],
  ["v8", "browser", "safari"],
  ["v8", "browser", "netscape"],
  ["v7", "country", "us"],
  ["v7", "country", "US"],
  ["v7", "country", "us-dal"],
  ["v7", "country", "zz"],
  ["v7", "layout", "dvorak"],
  ["v7", "language", "de"],
  ["v7", "egress", "residential"],
  ["v7", "idempotencyKey", "k"],
];

describe("check agrees with the service's own validation", () => {
  for (const [version, field, value] of ROWS) {
    const shown = typeof value === "string" && value.length > 30 ? `${value.length} characters` : JSON.stringify(value);
    it(`${version} ${field} = ${shown}`, async () => {
      const request = { browser: "chrome", [field]: value };
      const service = validateCreate(request as never, version);
      const { failures } = await t.provider({ apiVersion: version }).check({}, request);
      expect(failures.length > 0, `service says ${service.ok ? "ok" : (service as { message: string }).message}; check says ${JSON.stringify(failures)}`).toBe(!service.ok);
      // The refusal names the field the service names (residential country rules name country/egress).
      if (!service.ok) expect(failures.map((f) => f.property)).toContain(field);
    });
  }

  it("static rules alone already refuse `dvorak` and a v7 `US` (no service call needed)", () => {
    expect(staticFailures({ browser: "chrome", layout: "dvorak" }, "v8")).toEqual([
      { property: "layout", reason: 'must be a keyboard layout code such as us or de (two or three letters, optional subtags), got "dvorak"' },
    ]);
    expect(staticFailures({ browser: "chrome", country: "US" }, "v7").map((f) => f.property)).toEqual(["country"]);
  });
});
