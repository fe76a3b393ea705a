"use client";
// Page state in the URL (filters, chart settings), typed by a zod object: a view can be shared and survives a
// reload, and every page reads and writes it the same way.
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo } from "react";
import type { z } from "zod";

type Scalar = string | number | boolean | Date;
/** What a URL parameter can hold once parsed; a list travels as a comma list. */
export type SearchValue = Scalar | readonly Scalar[] | null | undefined;

/** A patch of URL state: a key set to undefined, null or "" is removed from the URL. */
export type SearchPatch<S extends z.ZodObject> = { [K in keyof z.output<S>]?: z.output<S>[K] | null | "" };

/**
 * Each key is parsed through its own field schema, so one bad value (an old link, a hand-edited URL) drops that
 * key alone instead of the whole view. Missing keys take the field's default, if it has one.
 */
export function parseSearch<S extends z.ZodObject>(schema: S, params: URLSearchParams): z.output<S> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    const raw = params.get(key);
    const parsed = field.safeParse(raw === null || raw === "" ? undefined : raw);
    if (parsed.success) out[key] = parsed.data;
    else {
      const fallback = field.safeParse(undefined);
      if (fallback.success) out[key] = fallback.data;
    }
  }
  return out as z.output<S>;
}

/** The string a value takes in the URL; undefined removes the key. */
export function toParam(v: SearchValue | ""): string | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map((x) => toParam(x as Scalar) ?? "").join(",") || undefined;
  return String(v);
}

/** The schema's keys present in `state`, in the schema's order: a view's canonical query string. */
export function toQuery<S extends z.ZodObject>(schema: S, state: Partial<z.output<S>>): string {
  const q = new URLSearchParams();
  for (const key of Object.keys(schema.shape)) {
    const s = toParam((state as Record<string, SearchValue>)[key]);
    if (s !== undefined) q.set(key, s);
  }
  return q.toString();
}

/**
 * `[state, set, query]`: the URL parsed through `schema`, a typed patch setter, and the canonical query string
 * of the schema's keys. The setter replaces the history entry (typing or picking a filter must not fill the
 * Back button); pass `{ history: "push" }` for a change worth going back to. Keys outside the schema are kept.
 */
export function useSearchState<S extends z.ZodObject>(schema: S) {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const raw = params.toString();
  const state = useMemo(() => parseSearch(schema, new URLSearchParams(raw)), [schema, raw]);
  const query = useMemo(() => toQuery(schema, state), [schema, state]);
  const set = useCallback(
    (patch: SearchPatch<S>, opts: { history?: "push" | "replace" } = {}) => {
      const next = new URLSearchParams(raw);
      for (const [k, v] of Object.entries(patch)) {
        const s = toParam(v as SearchValue);
        if (s === undefined) next.delete(k);
        else next.set(k, s);
      }
      const qs = next.toString();
      const url = qs ? `${pathname}?${qs}` : pathname;
      if (opts.history === "push") router.push(url, { scroll: false });
      else router.replace(url, { scroll: false });
    },
    [raw, router, pathname],
  );
  return [state, set, query] as const;
}
