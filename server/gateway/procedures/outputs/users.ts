// Output schemas of the users procedures (drafted by scripts/draft-output-schemas.ts from the handlers' types).
import { z } from "zod";

export const UsersListOutput = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      email: z.string(),
      name: z.string().nullable(),
      role: z.enum(["ADMIN", "REVIEWER", "VIEWER"]),
      disabled: z.boolean(),
      createdAt: z.string(),
      lastLoginAt: z.string().nullable(),
    }),
  ),
  nextCursor: z.string().nullable(),
});

export const UsersCreateOutput = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  role: z.enum(["ADMIN", "REVIEWER", "VIEWER"]),
  disabled: z.boolean(),
  createdAt: z.string(),
  lastLoginAt: z.string().nullable(),
});

export const UsersUpdateOutput = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  role: z.enum(["ADMIN", "REVIEWER", "VIEWER"]),
  disabled: z.boolean(),
  createdAt: z.string(),
  lastLoginAt: z.string().nullable(),
});
