/** Browser images, exit locations and residential coverage served by `GET /image`. */

export interface Image {
  id: string;
  name: string;
  enabled: boolean;
}

export interface City {
  code: string;
  location: string;
}

export interface VpnLocation {
  code: string;
  name: string;
  default: string;
  cities: City[];
}

export interface ResidentialDescriptor {
  configured: boolean;
  countries: string[] | null;
}

export const IMAGES: readonly Image[] = [
  { id: "chrome", name: "Google Chrome", enabled: true },
  { id: "firefox", name: "Mozilla Firefox", enabled: true },
  { id: "edge", name: "Microsoft Edge", enabled: true },
  { id: "brave", name: "Brave", enabled: true },
  // Listed but switched off, so clients can see how a disabled image is refused.
  { id: "safari", name: "Apple Safari", enabled: false },
];

export const VPN_LOCATIONS: readonly VpnLocation[] = [
  {
    code: "us",
    name: "United States",
    default: "us-nyc",
    cities: [
      { code: "us-nyc", location: "New York" },
      { code: "us-dal", location: "Dallas" },
      { code: "us-lax", location: "Los Angeles" },
    ],
  },
  {
    code: "de",
    name: "Germany",
    default: "de-fra",
    cities: [
      { code: "de-fra", location: "Frankfurt" },
      { code: "de-ber", location: "Berlin" },
    ],
  },
  {
    code: "uk",
    name: "United Kingdom",
    default: "uk-lon",
    cities: [
      { code: "uk-lon", location: "London" },
      { code: "uk-man", location: "Manchester" },
    ],
  },
  {
    code: "fr",
    name: "France",
    default: "fr-par",
    cities: [
      { code: "fr-par", location: "Paris" },
      { code: "fr-mrs", location: "Marseille" },
    ],
  },
  {
    code: "jp",
    name: "Japan",
    default: "jp-tyo",
    cities: [
      { code: "jp-tyo", location: "Tokyo" },
      { code: "jp-osa", location: "Osaka" },
    ],
  },
  {
    code: "nl",
    name: "Netherlands",
    default: "nl-ams",
    cities: [{ code: "nl-ams", location: "Amsterdam" }],
  },
];

// Japan is deliberately missing so that the residential country rule has a refusal to show.
export const RESIDENTIAL: ResidentialDescriptor = {
  configured: true,
  countries: ["us", "de", "uk", "fr", "nl"],
};

/** Simultaneous sessions one city's exit can carry unless the control surface says otherwise. */
export const DEFAULT_EXIT_CAPACITY = 3;

export function findImage(id: string): Image | undefined {
  return IMAGES.find((image) => image.id === id);
}

export function enabledImageIds(): string[] {
  return IMAGES.filter((image) => image.enabled).map((image) => image.id);
}

export function findCountry(code: string): VpnLocation | undefined {
  return VPN_LOCATIONS.find((location) => location.code === code);
}

export function findCity(code: string): { country: VpnLocation; city: City } | undefined {
  for (const country of VPN_LOCATIONS) {
    const city = country.cities.find((c) => c.code === code);
    if (city) return { country, city };
  }
  return undefined;
}

/** Every value accepted as `country` in version 8: country codes, city codes and `auto`. */
export function isKnownLocation(code: string): boolean {
  return code === "auto" || findCountry(code) !== undefined || findCity(code) !== undefined;
}

/** Country part of a location code: `us-dal` → `us`; `auto` has none. */
export function countryPart(code: string): string | null {
  if (code === "auto") return null;
  return code.split("-")[0] ?? null;
}

export function allCityCodes(): string[] {
  return VPN_LOCATIONS.flatMap((country) => country.cities.map((city) => city.code));
}

/**
 * Exit capacity per city. A request for a country may use any of its cities (default city first);
 * `auto` may use any city at all. When nothing is free the session falls back to the default connection.
 */
export class Exits {
  private readonly capacity = new Map<string, number>();
  private readonly used = new Map<string, number>();

  constructor() {
    this.restoreCapacity();
  }

  restoreCapacity(): void {
    for (const code of allCityCodes()) this.capacity.set(code, DEFAULT_EXIT_CAPACITY);
  }

  /** A country code sets the capacity of each of its cities. Returns false for an unknown code. */
  setCapacity(code: string, value: number): boolean {
    const country = findCountry(code);
    if (country) {
      for (const city of country.cities) this.capacity.set(city.code, value);
      return true;
    }
    if (findCity(code)) {
      this.capacity.set(code, value);
      return true;
    }
    return false;
  }

  capacities(): Record<string, number> {
    return Object.fromEntries(this.capacity);
  }

  /** Takes one exit for `requested`; returns the city code used, or null when none is free. */
  acquire(requested: string): string | null {
    const candidates = this.candidates(requested);
    let best: string | null = null;
    let bestFree = 0;
    for (const code of candidates) {
      const free = this.free(code);
      // The default city comes first and wins ties; `auto` prefers the emptiest exit.
      if (free > bestFree) {
        best = code;
        bestFree = free;
        if (requested !== "auto") break;
      }
    }
    if (best !== null) this.used.set(best, (this.used.get(best) ?? 0) + 1);
    return best;
  }

  release(code: string): void {
    const count = this.used.get(code) ?? 0;
    if (count <= 1) this.used.delete(code);
    else this.used.set(code, count - 1);
  }

  clearUsage(): void {
    this.used.clear();
  }

  private free(code: string): number {
    return (this.capacity.get(code) ?? 0) - (this.used.get(code) ?? 0);
  }

  private candidates(requested: string): string[] {
    if (requested === "auto") return allCityCodes();
    const country = findCountry(requested);
    if (country) {
      const rest = country.cities.map((c) => c.code).filter((c) => c !== country.default);
      return [country.default, ...rest];
    }
    return findCity(requested) ? [requested] : [];
  }
}
