// Drafts zod output schemas from what each procedure's handler returns today (the TypeScript types), one file
// per feature under server/gateway/procedures/outputs/. A starting point when a handler's return type changes
// or an endpoint is added; the committed schemas are then the contract (tRPC validates against them). A draft:
// Prisma JSON columns sometimes come out expanded (a union of string, number, boolean, array and record) and
// must be replaced by `Json` by hand, some nested rows come out as z.unknown(), and an indexed access
// (`rows[0] ?? null`) loses its null (the program has no noUncheckedIndexedAccess): check nullability by hand.
//   npx tsx scripts/draft-output-schemas.ts [feature ...]
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

const root = path.resolve(import.meta.dirname, "..");
const index = path.join(root, "server/gateway/procedures/index.ts");
const outDir = path.join(root, "server/gateway/procedures/outputs");
const program = ts.createProgram([index], {
  strict: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  skipLibCheck: true,
  noEmit: true,
});
const checker = program.getTypeChecker();
const source = program.getSourceFile(index)!;
const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(source)!);
const procedures = exported.find((s) => s.name === "procedures")!;
const tree = checker.getTypeOfSymbol(procedures);

const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function zodOf(t: ts.Type, outer: ts.Type[]): string {
  // A type met again inside itself (or nested implausibly deep) is recursive: left open.
  if (outer.includes(t) || outer.length > 30) return "z.unknown()";
  const seen = [...outer, t];
  const alias = t.aliasSymbol?.name;
  const JSON_TYPES = ["JsonValue", "InputJsonValue", "JsonObject", "JsonArray"];
  if (JSON_TYPES.includes(alias ?? "") || JSON_TYPES.includes(t.getSymbol()?.name ?? "")) return "Json";
  if (t.flags & ts.TypeFlags.Any || t.flags & ts.TypeFlags.Unknown) return "z.unknown()";
  if (t.flags & ts.TypeFlags.Never) return "z.never()";
  if (t.flags & ts.TypeFlags.String) return "z.string()";
  if (t.flags & ts.TypeFlags.Number) return "Num";
  if (t.flags & ts.TypeFlags.Boolean) return "z.boolean()";
  if (t.flags & ts.TypeFlags.Null) return "z.null()";
  if (t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)) return "z.undefined()";
  if (t.isStringLiteral()) return `z.literal(${JSON.stringify(t.value)})`;
  if (t.isNumberLiteral()) return `z.literal(${t.value})`;
  if (t.flags & ts.TypeFlags.BooleanLiteral) return `z.literal(${checker.typeToString(t)})`;
  if (t.isUnion()) {
    let parts = t.types;
    const nullable = parts.some((p) => p.flags & ts.TypeFlags.Null);
    const optional = parts.some((p) => p.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void));
    parts = parts.filter((p) => !(p.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined | ts.TypeFlags.Void)));
    const bools = parts.filter((p) => p.flags & ts.TypeFlags.BooleanLiteral);
    let inner: string;
    if (bools.length === 2) parts = parts.filter((p) => !(p.flags & ts.TypeFlags.BooleanLiteral));
    const members = parts.map((p) => zodOf(p, seen));
    // Prisma's JsonValue without its alias: string | number | boolean | JsonObject | JsonArray.
    if (members.includes("Json")) return optional ? "Json.optional()" : "Json";
    if (bools.length === 2) members.push("z.boolean()");
    if (parts.length > 1 && parts.every((p) => p.isStringLiteral()))
      inner = `z.enum([${parts.map((p) => JSON.stringify((p as ts.StringLiteralType).value)).join(", ")}])`;
    else inner = members.length === 1 ? members[0]! : `z.union([${members.join(", ")}])`;
    if (nullable) inner += ".nullable()";
    if (optional) inner += ".optional()";
    return inner;
  }
  if (t.getSymbol()?.name === "Date") return "z.date()";
  if (checker.isArrayType(t)) return `z.array(${zodOf(checker.getTypeArguments(t as ts.TypeReference)[0]!, seen)})`;
  if (checker.isTupleType(t))
    return `z.tuple([${checker
      .getTypeArguments(t as ts.TypeReference)
      .map((a) => zodOf(a, seen))
      .join(", ")}])`;
  // Prisma payloads and spreads are intersections: their properties are the object's.
  if (t.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection)) {
    const next = seen;
    const stringIndex = checker.getIndexTypeOfType(t, ts.IndexKind.String);
    const props = checker.getPropertiesOfType(t);
    if (stringIndex && props.length === 0) return `z.record(z.string(), ${zodOf(stringIndex, next)})`;
    const fields = props.map((p) => {
      const pt = checker.getTypeOfSymbol(p);
      let z = zodOf(pt, next);
      if (p.flags & ts.SymbolFlags.Optional && !z.endsWith(".optional()")) z += ".optional()";
      const key = /^[A-Za-z_$][\w$]*$/.test(p.name) ? p.name : JSON.stringify(p.name);
      return `${key}: ${z}`;
    });
    return `z.object({ ${fields.join(", ")} })`;
  }
  return "z.unknown()";
}

function walk(t: ts.Type, trail: string[], out: Map<string, string[]>) {
  const handler = t.getProperty("handler");
  if (handler) {
    const sig = checker.getTypeOfSymbol(handler).getCallSignatures()[0]!;
    const ret = checker.getAwaitedType(sig.getReturnType()) ?? sig.getReturnType();
    const feature = trail[0]!;
    const name = trail.map(pascal).join("") + "Output";
    out.set(feature, [...(out.get(feature) ?? []), `export const ${name} = ${zodOf(ret, [])};`]);
    return;
  }
  for (const p of checker.getPropertiesOfType(t)) walk(checker.getTypeOfSymbol(p), [...trail, p.name], out);
}

const wanted = process.argv.slice(2);
const out = new Map<string, string[]>();
walk(tree, [], out);
fs.mkdirSync(outDir, { recursive: true });
for (const [feature, lines] of out) {
  if (wanted.length && !wanted.includes(feature)) continue;
  const file = path.join(outDir, `${feature}.ts`);
  const header = `// Output schemas of the ${feature} procedures (drafted by scripts/draft-output-schemas.ts from the handlers' types).\nimport { z } from "zod";\nimport { Json, Num } from "./common";\n\n`;
  fs.writeFileSync(file, header + lines.join("\n\n") + "\n");
  console.log(file);
}
