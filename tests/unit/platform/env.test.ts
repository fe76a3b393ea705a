// Boolean settings are parsed one way (env.ts `flag`), whatever their default; the worker switches with them.
import { describe, expect, it } from "vitest";
import { settings } from "../../../server/platform/env";
import { WORKERS } from "../../../workers/registry";

describe("boolean settings", () => {
  it("read 1/true/on/yes and 0/false/off/no in any case; unset, blank or other values keep the default", () => {
    for (const v of ["1", "true", "ON", " yes "]) {
      expect(settings("egress", { UPSTREAM_ALLOW_PRIVATE: v }).UPSTREAM_ALLOW_PRIVATE).toBe(true);
      expect(settings("simulate", { SIMULATE: v }).SIMULATE).toBe(true);
    }
    for (const v of ["0", "false", "Off", "no"]) {
      expect(settings("egress", { UPSTREAM_ALLOW_PRIVATE: v }).UPSTREAM_ALLOW_PRIVATE).toBe(false);
      expect(settings("simulate", { SIMULATE: v }).SIMULATE).toBe(false);
    }
    for (const v of [undefined, "", "maybe"]) {
      expect(settings("egress", { UPSTREAM_ALLOW_PRIVATE: v }).UPSTREAM_ALLOW_PRIVATE).toBe(false);
      expect(settings("simulate", { SIMULATE: v }).SIMULATE).toBe(true);
    }
  });

  it("switch workers off by WORKER_<NAME>, each on by default", () => {
    expect(WORKERS.filter((w) => w.enabled({})).map((w) => w.name)).toEqual(WORKERS.map((w) => w.name));
    const off = WORKERS.filter((w) => !w.enabled({ WORKER_SERVE: "off", WORKER_TRAIN: "0" })).map((w) => w.name);
    expect(off).toEqual(["serve", "train"]);
  });
});
