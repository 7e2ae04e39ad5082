/**
 * The service lists the account's sessions with their ids "partly masked" and does not say how. All this
 * package assumes is that a masked id shows some of the id's characters and hides the others behind mask
 * characters: a run of them stands for one or more hidden characters. A listed session is then a candidate
 * for a known vmId when every visible character agrees, in order. Several vmIds can agree with one masked
 * id (and one vmId with several listed sessions): callers count such collisions instead of guessing.
 */

/** Characters a service uses to hide part of an id. */
const MASK = "*•…";
const MASK_RUN = /[*•…]+/u;

/**
 * The masked id's visible pieces, in order: the text before the first run of mask characters, between each
 * two runs, and after the last (the first and last may be empty).
 */
export function visiblePieces(masked: string): string[] {
  return masked.split(MASK_RUN);
}

/**
 * Whether `vmId` could be the session listed as `masked`: every visible character agrees, and each run of
 * mask characters stands for at least one character.
 */
export function maskedIdMatches(masked: string, vmId: string): boolean {
  return matchMaskedId(masked, vmId).matches;
}

/**
 * maskedIdMatches with the number of character comparisons it made. Each visible piece is taken at its
 * leftmost place after the one before it -- that leaves the most room for the rest, so no other placement
 * is ever tried -- and found by a scan that never steps back in the id (Knuth-Morris-Pratt), so the work is
 * linear in the lengths of both ids. The regular expression this replaces (`.+` between the pieces)
 * backtracked: cubic in the id's length from three masked runs on, and worse with each further run.
 */
export function matchMaskedId(masked: string, vmId: string): { matches: boolean; comparisons: number } {
  const pieces = visiblePieces(masked);
  let comparisons = 0;
  const result = (matches: boolean) => ({ matches, comparisons });
  if (pieces.length === 1) {
    comparisons += Math.min(masked.length, vmId.length);
    return result(masked === vmId);
  }
  const first = pieces[0]!;
  const last = pieces[pieces.length - 1]!;
  comparisons += first.length;
  if (!vmId.startsWith(first)) return result(false);
  let at = first.length;
  for (const piece of pieces.slice(1, -1)) {
    const found = indexOfFrom(vmId, piece, at + 1, () => comparisons++);
    if (found < 0) return result(false);
    at = found + piece.length;
  }
  comparisons += last.length;
  return result(vmId.length - last.length >= at + 1 && vmId.endsWith(last));
}

/** Where `piece` (not empty) first occurs in `text` from `from` on, or -1; `compared` is called per comparison. */
function indexOfFrom(text: string, piece: string, from: number, compared: () => void): number {
  // The longest proper prefix of piece[0..i] that is also its suffix, for each i.
  const border = new Array<number>(piece.length).fill(0);
  for (let i = 1, k = 0; i < piece.length; i++) {
    while (k > 0 && (compared(), piece[i] !== piece[k])) k = border[k - 1]!;
    compared();
    if (piece[i] === piece[k]) k++;
    border[i] = k;
  }
  for (let i = from, k = 0; i < text.length; i++) {
    while (k > 0 && (compared(), text[i] !== piece[k])) k = border[k - 1]!;
    compared();
    if (text[i] === piece[k]) k++;
    if (k === piece.length) return i - piece.length + 1;
  }
  return -1;
}

/** Whether an id hides part of itself (has a mask character): then it cannot address a session. */
export function isMasked(id: string): boolean {
  return [...id].some((c) => MASK.includes(c));
}

/**
 * Known vmIds, indexed by their visible ends, so that a listed entry is compared only with the ids that
 * share its last visible characters (or its first ones, when the mask runs to the end) instead of with
 * every id: a list of N entries against W ids then costs about N lookups, not N × W matches. Each length
 * of visible end the entries show builds its index once.
 */
export class MaskedIdIndex {
  private readonly whole: Set<string>;
  private readonly byEnd = new Map<string, Map<string, string[]>>();

  constructor(ids: Iterable<string>) {
    this.whole = new Set(ids);
  }

  /** The ids that `masked` may stand for (maskedIdMatches), each once. */
  candidates(masked: string): string[] {
    const pieces = visiblePieces(masked);
    if (pieces.length === 1) return this.whole.has(masked) ? [masked] : [];
    const first = pieces[0]!;
    const last = pieces[pieces.length - 1]!;
    const near = last ? this.sharing("end", last) : first ? this.sharing("start", first) : [...this.whole];
    return near.filter((id) => maskedIdMatches(masked, id));
  }

  private sharing(side: "start" | "end", visible: string): string[] {
    const n = visible.length;
    const key = `${side}:${n}`;
    let index = this.byEnd.get(key);
    if (!index) {
      index = new Map();
      for (const id of this.whole) {
        const end = side === "end" ? id.slice(-n) : id.slice(0, n);
        if (id.length < n) continue;
        const list = index.get(end);
        if (list) list.push(id);
        else index.set(end, [id]);
      }
      this.byEnd.set(key, index);
    }
    return index.get(visible) ?? [];
  }
}
