export interface ConfigChange {
  path: string;
  before: unknown;
  after: unknown;
}

/** Leaf-level differences between two JSON values, paths in dot notation (arrays compared whole). */
export function diffConfigs(a: unknown, b: unknown, prefix = ""): ConfigChange[] {
  const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
  if (isObj(a) && isObj(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => diffConfigs(a[k], b[k], prefix ? `${prefix}.${k}` : k));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [{ path: prefix || "(root)", before: a, after: b }];
}
