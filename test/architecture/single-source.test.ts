import * as path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { LOCALES } from "../../client/schemas";
import { INPUTS, OUTPUTS, inputDoc, type InputField } from "../../core/declaration";
import { FUNCTIONS } from "../../plugin/functions";
import { NATIVE_SCHEMA, type PropertySpec } from "../../plugin/nativeSchema";

/**
 * Facts the TypeScript SDK must write out by hand -- its declarations carry the docs an editor shows, which
 * no table can generate -- checked against the tables they restate: the field table (core/declaration.ts), the
 * plugin's functions (plugin/functions.ts) and the schema built from both. A doc, a name, a type or an
 * optional mark that drifts fails here.
 */
const root = path.resolve(__dirname, "..", "..");
const program = ts.createProgram(
  ["sdk/browserSession.ts", "sdk/functions.ts", "core/dataSources.ts"].map((f) => path.join(root, f)),
  { strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, esModuleInterop: true, skipLibCheck: true },
);
const checker = program.getTypeChecker();
const normal = (s: string) => s.replace(/\s+/g, " ").trim();

/** The exported declaration `name` of `file`. */
function declared(file: string, name: string): ts.Symbol {
  const source = program.getSourceFile(path.join(root, file));
  if (!source) throw new Error(`${file} is not in the program`);
  const symbol = checker.getExportsOfModule(checker.getSymbolAtLocation(source)!).find((s) => s.getName() === name);
  if (!symbol) throw new Error(`${file} exports no ${name}`);
  return symbol;
}

/** A declaration's doc as an editor shows it: the text, then `@default <text>` when there is one. */
function docOf(symbol: ts.Symbol): string {
  const text = ts.displayPartsToString(symbol.getDocumentationComment(checker));
  const dflt = symbol.getJsDocTags(checker).find((t) => t.name === "default");
  return normal(dflt ? `${text} @default ${ts.displayPartsToString(dflt.text)}` : text);
}

/** The properties of an interface or class, by name. */
function propertiesOf(symbol: ts.Symbol): Map<string, ts.Symbol> {
  return new Map(checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol)).map((p) => [p.getName(), p]));
}

describe("the TypeScript SDK's hand-written declarations agree with the tables", () => {
  it("BrowserSessionArgs: every input with the field table's doc, replace-or-in-place note and default", () => {
    const args = propertiesOf(declared("sdk/browserSession.ts", "BrowserSessionArgs"));
    expect([...args.keys()].sort()).toEqual(Object.keys(INPUTS).sort());
    for (const [name, field] of Object.entries(INPUTS)) {
      const expected = normal(inputDoc(field as InputField, "jsdoc"));
      expect(docOf(args.get(name)!), name).toBe(expected);
      // Optional in the SDK exactly when the field is.
      expect((args.get(name)!.flags & ts.SymbolFlags.Optional) === 0, name).toBe((field as { required?: boolean }).required === true);
    }
  });

  it("BrowserSession: every output the state shows with the field table's doc", () => {
    const resource = propertiesOf(declared("sdk/browserSession.ts", "BrowserSession"));
    for (const [name, field] of Object.entries(OUTPUTS)) {
      expect(docOf(resource.get(name)!), name).toBe(normal(field.doc));
    }
  });

  it("ShareLanguage: the languages the service's schema has", () => {
    const type = checker.getDeclaredTypeOfSymbol(declared("sdk/browserSession.ts", "ShareLanguage"));
    const values = (type.isUnion() ? type.types : [type]).map((t) => (t as ts.StringLiteralType).value);
    expect(values.sort()).toEqual([...LOCALES].sort());
  });

  it("the functions: each one's doc is the plugin's, which the schema states", () => {
    for (const [token, fn] of Object.entries(FUNCTIONS)) {
      const name = token.split(":")[2]!;
      expect(docOf(declared("sdk/functions.ts", name)), name).toBe(normal(fn.doc));
      expect(NATIVE_SCHEMA.functions[token as keyof typeof NATIVE_SCHEMA.functions].description, token).toBe(fn.doc);
    }
  });

  it("the data sources' answers: each type's properties, their kinds and which are always there, as the schema states them", () => {
    const kindOf = (t: ts.Type): string => {
      const nonNull = checker.getNonNullableType(t);
      if (nonNull.flags & ts.TypeFlags.StringLike) return "string";
      if (nonNull.flags & ts.TypeFlags.NumberLike) return "number";
      if (nonNull.flags & ts.TypeFlags.BooleanLike) return "boolean";
      if (checker.isArrayType(nonNull)) return `array of ${kindOf(checker.getTypeArguments(nonNull as ts.TypeReference)[0]!)}`;
      // Named strings, and named strings open to others (`"a" | "b" | (string & {})`, as SessionStatus).
      const stringish = (u: ts.Type) => u.flags & ts.TypeFlags.StringLiteral || (u.isIntersection() && u.types.some((x) => x.flags & ts.TypeFlags.String));
      if (nonNull.isUnion() && nonNull.types.every(stringish)) return "string";
      return `ref ${nonNull.aliasSymbol?.getName() ?? nonNull.getSymbol()?.getName()}`;
    };
    const schemaKind = (p: { type?: string; $ref?: string; items?: { type?: string; $ref?: string } }): string =>
      p.$ref ? `ref ${p.$ref.split(":").pop()}` : p.type === "array" ? `array of ${schemaKind(p.items!)}` : p.type === "integer" ? "number" : p.type!;
    const types: Record<string, { properties?: Record<string, PropertySpec>; required?: string[] }> = NATIVE_SCHEMA.types;
    const compare = (tsName: string, properties: Record<string, PropertySpec>, required: string[]) => {
      const props = propertiesOf(declared("core/dataSources.ts", tsName));
      expect([...props.keys()].sort(), tsName).toEqual(Object.keys(properties).sort());
      for (const [name, p] of props) {
        const t = checker.getTypeOfSymbol(p);
        const optional = (p.flags & ts.SymbolFlags.Optional) !== 0 || (t.isUnion() && t.types.some((u) => u.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)));
        expect(kindOf(t), `${tsName}.${name}`).toBe(schemaKind(properties[name]!));
        expect(!optional, `${tsName}.${name} always there`).toBe(required.includes(name));
      }
    };
    for (const [token, spec] of Object.entries(types)) {
      if (!spec.properties) continue;
      compare(token.split(":").pop()!, spec.properties, spec.required ?? []);
    }
    for (const [token, fn] of Object.entries(NATIVE_SCHEMA.functions as Record<string, { outputs: { properties: Record<string, PropertySpec>; required: string[] } }>)) {
      const name = token.split(":").pop()!;
      compare(`${name[0]!.toUpperCase()}${name.slice(1)}Result`, fn.outputs.properties, fn.outputs.required);
    }
  });
});
