import { describe, expect, it } from "vitest";
import { useEmulator } from "../helpers/emulator";

/**
 * A service whose refusals repeat the credentials they refused (the emulator's latitude profile): no
 * message the provider makes of them may carry the key, which the engine prints as it is when the key came
 * from the environment (it masks only stack config set as secret).
 */
const t = useEmulator({ latitude: true });
const WRONG = "rb_wrong_key_latitude_1111111111";

describe("messages made of refusals that repeat the credentials", () => {
  it("say the key was refused without repeating it", async () => {
    const err = (await t
      .provider({ apiKey: WRONG })
      .create({ browser: "chrome", __seed: "latitude" })
      .catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/refused the API key/);
    expect(err.message).not.toContain(WRONG);
  });

  it("carry not the configured key either, when the service repeats it in another refusal", async () => {
    const err = (await t
      .client()
      .removeSession("vm-000000000000")
      .catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/unknown session/);
    expect(err.message).not.toContain(t.emu.apiKey);
  });
});
