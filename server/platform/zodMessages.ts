// Our wording for zod's built-in checks, installed as zod's global error map. The server (every REST and
// tRPC 4xx) and the console's forms (which validate with the same schemas before sending) import this
// module, so a user reads the same sentence in the browser and from curl, never zod's
// "Too small: expected number to be >=1". Messages a schema sets itself still win: zod ranks a schema's
// own message above the global map.
import { z } from "zod";

const list = (values: readonly unknown[]) =>
  values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(", ");

const SIZED: Record<string, string> = {
  string: "characters",
  array: "items",
  set: "items",
  map: "entries",
  file: "bytes",
};

const FORMATS: Record<string, string> = {
  url: "a URL",
  email: "an email address",
  uuid: "a UUID",
  datetime: "an ISO date-time",
  date: "an ISO date",
};

/** The message for one issue, or undefined to leave zod's. Exported for the unit test. */
export function zodMessage(iss: z.core.$ZodRawIssue): string | undefined {
  switch (iss.code) {
    case "invalid_type": {
      if (iss.input === undefined) return "required";
      if (iss.expected === "int") return "must be a whole number";
      if (iss.expected === "number" && typeof iss.input === "number") return "must be a finite number";
      return `must be ${iss.expected === "array" || iss.expected === "object" ? "an" : "a"} ${iss.expected}`;
    }
    case "too_small": {
      const n = String(iss.minimum);
      const unit = SIZED[iss.origin];
      if (unit) {
        if (iss.origin === "string" && Number(iss.minimum) === 1) return "required";
        return iss.exact ? `must have exactly ${n} ${unit}` : `needs at least ${n} ${unit}`;
      }
      return iss.exact ? `must be exactly ${n}` : iss.inclusive ? `must be at least ${n}` : `must be above ${n}`;
    }
    case "too_big": {
      const n = String(iss.maximum);
      const unit = SIZED[iss.origin];
      if (unit) return iss.exact ? `must have exactly ${n} ${unit}` : `must have at most ${n} ${unit}`;
      return iss.exact ? `must be exactly ${n}` : iss.inclusive ? `must be at most ${n}` : `must be below ${n}`;
    }
    case "invalid_value":
      return iss.values.length === 1 ? `must be ${list(iss.values)}` : `must be one of: ${list(iss.values)}`;
    case "invalid_union":
      return "options" in iss && Array.isArray(iss.options) && iss.options.length
        ? `must be one of: ${list(iss.options)}`
        : undefined;
    case "invalid_format":
      if (iss.format === "regex") return "has the wrong format";
      return FORMATS[iss.format] ? `must be ${FORMATS[iss.format]}` : undefined;
    case "not_multiple_of":
      return `must be a multiple of ${String(iss.divisor)}`;
    case "unrecognized_keys":
      return `unknown field${iss.keys.length > 1 ? "s" : ""}: ${iss.keys.join(", ")}`;
    default:
      return undefined;
  }
}

z.config({ customError: zodMessage });
