/**
 * GitHub Actions expressions (`${{ ... }}` and `if:`), evaluated as the runner evaluates them, so that the
 * workflow tests read the workflows' own `env:` and `if:` lines instead of restating them. It covers the
 * grammar the workflows use (literals, contexts, `!`, `==`, `!=`, `<`…, `&&`, `||`, parentheses and a
 * few functions); anything else throws, so a workflow that starts using more cannot be half-understood.
 * Rules from GitHub's "Evaluate expressions" reference: a missing property is null; `&&`/`||` return an
 * operand; strings compare ignoring case; mixed types compare as numbers; null renders as ''.
 */

export type Value = null | boolean | number | string | Value[] | { [key: string]: Value };

/** The named values an expression may read (`github`, `env`, `secrets`, …); a missing one is an error. */
export type Contexts = Record<string, Value>;

/** Job status, read by `success()`, `failure()`, `always()` and `cancelled()` in an `if:`. */
export interface Status {
  failed: boolean;
}

type Token = { kind: "str" | "num" | "id" | "op"; text: string };

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === "'") {
      let s = "";
      i++;
      for (;;) {
        if (i >= src.length) throw new Error(`unterminated string in ${src}`);
        if (src[i] === "'") {
          if (src[i + 1] === "'") {
            s += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        s += src[i++];
      }
      tokens.push({ kind: "str", text: s });
    } else if (/[0-9]/.test(c) || (c === "-" && /[0-9]/.test(src[i + 1] ?? ""))) {
      const m = /^-?(0x[0-9a-fA-F]+|[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?)/.exec(src.slice(i))!;
      tokens.push({ kind: "num", text: m[0] });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      // Property names may hold `-` (`inputs.ttl-days`, `outputs.config-map`).
      const m = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(src.slice(i))!;
      tokens.push({ kind: "id", text: m[0] });
      i += m[0].length;
    } else {
      const op = ["==", "!=", "<=", ">=", "&&", "||"].find((o) => src.startsWith(o, i)) ?? c;
      if (!["==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "(", ")", "[", "]", ".", ","].includes(op)) {
        throw new Error(`unexpected ${JSON.stringify(op)} in ${src}`);
      }
      tokens.push({ kind: "op", text: op });
      i += op.length;
    }
  }
  return tokens;
}

function truthy(v: Value): boolean {
  return !(v === null || v === false || v === 0 || v === "" || (typeof v === "number" && Number.isNaN(v)));
}

function toNumber(v: Value): number {
  if (v === null) return 0;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "number") return v;
  if (typeof v === "string") return v.trim() === "" ? 0 : Number(v);
  return Number.NaN;
}

function equal(a: Value, b: Value): boolean {
  if (typeof a === "string" && typeof b === "string") return a.toLowerCase() === b.toLowerCase();
  const isObject = (v: Value) => v !== null && typeof v === "object";
  if (isObject(a) || isObject(b)) return a === b;
  if (typeof a === typeof b) return a === b;
  return toNumber(a) === toNumber(b);
}

function compare(a: Value, b: Value): number {
  if (typeof a === "string" && typeof b === "string") return a.toLowerCase().localeCompare(b.toLowerCase());
  return toNumber(a) - toNumber(b);
}

/** How a value is written into a string (`${{ }}` in a script or an `env:` value). */
export function render(v: Value): string {
  if (v === null) return "";
  if (typeof v === "string") return v;
  if (typeof v === "boolean" || typeof v === "number") return String(v);
  return JSON.stringify(v, null, 2);
}

export function evaluate(src: string, ctx: Contexts, status: Status = { failed: false }): Value {
  const tokens = tokenize(src);
  let pos = 0;
  const peek = () => tokens[pos];
  const take = (text?: string): Token => {
    const t = tokens[pos];
    if (!t || (text !== undefined && t.text !== text)) throw new Error(`expected ${text ?? "a value"} at token ${pos} in ${src}`);
    pos++;
    return t;
  };
  const isOp = (text: string) => peek()?.kind === "op" && peek()!.text === text;

  const functions: Record<string, (args: Value[]) => Value> = {
    fromjson: ([s]) => JSON.parse(render(s ?? null)) as Value,
    tojson: ([v]) => JSON.stringify(v ?? null, null, 2),
    contains: ([hay, needle]) =>
      Array.isArray(hay)
        ? hay.some((x) => equal(x, needle ?? null))
        : render(hay ?? null)
            .toLowerCase()
            .includes(render(needle ?? null).toLowerCase()),
    startswith: ([s, p]) =>
      render(s ?? null)
        .toLowerCase()
        .startsWith(render(p ?? null).toLowerCase()),
    endswith: ([s, p]) =>
      render(s ?? null)
        .toLowerCase()
        .endsWith(render(p ?? null).toLowerCase()),
    success: () => !status.failed,
    failure: () => status.failed,
    always: () => true,
    cancelled: () => false,
  };

  function primary(): Value {
    const t = take();
    if (t.kind === "str") return t.text;
    if (t.kind === "num") return Number(t.text);
    if (t.kind === "op" && t.text === "(") {
      const v = or();
      take(")");
      return v;
    }
    if (t.kind !== "id") throw new Error(`unexpected ${t.text} in ${src}`);
    if (t.text === "true" || t.text === "false") return t.text === "true";
    if (t.text === "null") return null;
    if (isOp("(")) {
      const fn = functions[t.text.toLowerCase()];
      if (!fn) throw new Error(`unknown function ${t.text} in ${src}`);
      take("(");
      const args: Value[] = [];
      while (!isOp(")")) {
        args.push(or());
        if (!isOp(")")) take(",");
      }
      take(")");
      return fn(args);
    }
    if (!(t.text in ctx)) throw new Error(`unrecognized named-value ${t.text} in ${src}`);
    let v: Value = ctx[t.text]!;
    for (;;) {
      let key: Value;
      if (isOp(".")) {
        take(".");
        key = take().text;
      } else if (isOp("[")) {
        take("[");
        key = or();
        take("]");
      } else {
        return v;
      }
      v = v !== null && typeof v === "object" ? ((v as Record<string, Value>)[render(key)] ?? null) : null;
    }
  }
  function unary(): Value {
    if (isOp("!")) {
      take("!");
      return !truthy(unary());
    }
    return primary();
  }
  function comparison(): Value {
    let left = unary();
    while (peek()?.kind === "op" && ["==", "!=", "<", "<=", ">", ">="].includes(peek()!.text)) {
      const op = take().text;
      const right = unary();
      if (op === "==") left = equal(left, right);
      else if (op === "!=") left = !equal(left, right);
      else {
        const c = compare(left, right);
        left = op === "<" ? c < 0 : op === "<=" ? c <= 0 : op === ">" ? c > 0 : c >= 0;
      }
    }
    return left;
  }
  function and(): Value {
    let left = comparison();
    while (isOp("&&")) {
      take("&&");
      const right = comparison();
      left = truthy(left) ? right : left;
    }
    return left;
  }
  function or(): Value {
    let left = and();
    while (isOp("||")) {
      take("||");
      const right = and();
      left = truthy(left) ? left : right;
    }
    return left;
  }

  const v = or();
  if (pos !== tokens.length) throw new Error(`unexpected ${tokens[pos]!.text} in ${src}`);
  return v;
}

/** A string with every `${{ … }}` replaced by its rendered value. */
export function interpolate(text: string, ctx: Contexts): string {
  return text.replace(/\$\{\{(.*?)\}\}/gs, (_m, expr: string) => render(evaluate(expr, ctx)));
}

/**
 * An `if:` condition: `${{ }}` around it is optional, and a condition that calls none of the status
 * functions means `success() && (…)`.
 */
export function condition(src: string | undefined, ctx: Contexts, status: Status): boolean {
  if (src === undefined) return !status.failed;
  const m = /^\s*\$\{\{(.*)\}\}\s*$/s.exec(src);
  const expr = m ? m[1]! : src;
  const checksStatus = /\b(success|failure|always|cancelled)\s*\(/i.test(expr);
  return (checksStatus || !status.failed) && truthy(evaluate(expr, ctx, status));
}
