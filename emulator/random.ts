import { randomBytes } from "node:crypto";

/**
 * Source of the emulator's non-secret randomness (timing jitter, session ids, generated keys).
 * A seed makes runs repeatable; share link ids never come from here because they act as passwords.
 */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** `bytes` random bytes as lowercase hex. */
  hex(bytes: number): string;
}

export function createRandom(seed?: number): Random {
  if (seed === undefined) {
    return {
      next: () => Math.random(),
      hex: (bytes) => randomBytes(bytes).toString("hex"),
    };
  }
  // mulberry32: tiny, fast and good enough for jitter and ids in tests.
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    hex: (bytes) => {
      let out = "";
      for (let i = 0; i < bytes; i++)
        out += Math.floor(next() * 256)
          .toString(16)
          .padStart(2, "0");
      return out;
    },
  };
}

/** Share link id: 192 bits from the OS generator, URL-safe, so it cannot be guessed. */
export function newLinkId(): string {
  return randomBytes(24).toString("base64url");
}
