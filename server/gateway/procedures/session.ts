// Who the caller is and what it may do (the UI hides what the permissions do not allow).
import { permissions } from "../../access/principal";
import { procedure } from "./define";
import { MeOutput } from "./outputs/me";

export const me = procedure({
  kind: "query",
  permission: "authenticated",
  summary: "The caller (user or API key) and its permissions",
  output: MeOutput,
  handler: ({ principal }) => ({
    principal:
      principal.kind === "user"
        ? { kind: "user" as const, email: principal.email, role: principal.role }
        : { kind: "apiKey" as const, prefix: principal.prefix },
    permissions: [...permissions(principal)],
  }),
});
