// Form state is a plain nested object shaped like ExperimentConfigInput; fields address it by dot path,
// which is also how zod reports issues, so every error lands next to its field.
export type Json = Record<string, unknown>;

export function getAt(obj: Json, path: string): unknown {
  return path.split(".").reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Json)[k] : undefined), obj);
}

export function setAt(obj: Json, path: string, value: unknown): Json {
  const [head, ...rest] = path.split(".");
  const child = (obj[head!] && typeof obj[head!] === "object" ? obj[head!] : {}) as Json;
  return { ...obj, [head!]: rest.length ? setAt(child, rest.join("."), value) : value };
}
