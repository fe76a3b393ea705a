import { z } from "zod";
import { IdSchema, PageInput, QueryBool } from "../platform/schemas";
import { EndUserIdSchema } from "../personalization/schemas";

export const EmailSchema = z.string().trim().toLowerCase().email("must be a valid email address").max(254);
export const PasswordSchema = z.string().min(8, "password must be at least 8 characters").max(200);
export const RoleSchema = z.enum(["ADMIN", "REVIEWER", "VIEWER"]);

// Sign-in accepts any stored address (e.g. an INIT_ADMIN_EMAIL without a dot in its domain); the format is
// enforced when users are created.
export const LoginInput = z.object({
  email: z.string().trim().toLowerCase().min(1, "email is required").max(254),
  password: z.string().min(1, "password is required").max(200),
});
export const UserCreateInput = z.object({
  email: EmailSchema,
  name: z.string().max(120).optional(),
  password: PasswordSchema,
  role: RoleSchema.default("VIEWER"),
});
export const UserUpdateInput = z.object({
  id: IdSchema,
  name: z.string().max(120).optional(),
  role: RoleSchema.optional(),
  disabled: z.boolean().optional(),
  password: PasswordSchema.optional(),
});
export const UserListInput = PageInput;

export const ApiKeyCreateInput = z.object({
  name: z.string().trim().min(1, "name is required").max(120),
  scopes: z
    .array(z.enum(["proxy", "read", "write", "admin", "identity"]))
    .min(1, "pick at least one scope")
    .max(5),
  experimentId: IdSchema.optional(),
  /**
   * The end user a key serves (an agent or app acting for one person): its proxy traffic is that user's, as if
   * every request sent X-User-Id. Needs an experiment binding and the proxy scope alone.
   */
  endUserId: EndUserIdSchema.optional(),
  expiresAt: z.coerce.date().optional(),
});
export const ApiKeyListInput = PageInput.extend({ includeRevoked: QueryBool.default(false) });
