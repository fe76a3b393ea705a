import type { z } from "zod";
import { db } from "../platform/db/client";
import type { User } from "../platform/db/generated/client";
import { audit } from "../access/audit";
import { hashSecret, verifySecret } from "../access/password";
import { suspendKeysOf } from "../access/apiKeys";
import { type Principal } from "../access/principal";
import { appError, conflict, notFound, unauthorized } from "../platform/errors";
import type { UserCreateInput, UserListInput, UserUpdateInput } from "./schemas";

export function userView(u: User) {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    role: u.role,
    disabled: !!u.disabledAt,
    createdAt: u.createdAt.toISOString(),
    lastLoginAt: u.lastLoginAt?.toISOString() ?? null,
  };
}

// A fixed hash so unknown emails cost the same scrypt work as wrong passwords (no user enumeration by timing).
const DUMMY_HASH = "scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

export async function authenticate(email: string, password: string) {
  const user = await db().user.findUnique({ where: { email: email.toLowerCase() } });
  const ok = await verifySecret(password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !ok || user.disabledAt) throw unauthorized("Wrong email or password");
  await db().user.update({ where: { id: user.id }, data: { lastLoginAt: new Date() } });
  return userView(user);
}

export async function listUsers(p: Principal, input: z.output<typeof UserListInput>) {
  const rows = await db().user.findMany({
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: input.limit + 1,
    ...(input.cursor ? { cursor: { id: input.cursor }, skip: 1 } : {}),
  });
  const items = rows.slice(0, input.limit).map(userView);
  return { items, nextCursor: rows.length > input.limit ? items[items.length - 1]!.id : null };
}

export async function createUser(p: Principal | null, input: z.output<typeof UserCreateInput>) {
  const passwordHash = await hashSecret(input.password);
  const u = await db().$transaction(async (tx) => {
    if (await tx.user.findUnique({ where: { email: input.email } }))
      throw appError("name_taken", `A user with email ${input.email} exists`);
    const created = await tx.user.create({
      data: { email: input.email, name: input.name, role: input.role, passwordHash },
    });
    await audit(tx, p, "user.create", "user", created.id, null, { email: created.email, role: created.role });
    return created;
  });
  return userView(u);
}

export async function updateUser(p: Principal, input: z.output<typeof UserUpdateInput>) {
  const passwordHash = input.password ? await hashSecret(input.password) : undefined;
  const u = await db().$transaction(async (tx) => {
    const before = await tx.user.findUnique({ where: { id: input.id } });
    if (!before) throw notFound("User", input.id);
    const demotingLastAdmin =
      before.role === "ADMIN" &&
      ((input.role && input.role !== "ADMIN") || input.disabled) &&
      (await tx.user.count({ where: { role: "ADMIN", disabledAt: null } })) <= 1;
    if (demotingLastAdmin) throw conflict("This is the last active admin: promote another user first");
    const after = await tx.user.update({
      where: { id: input.id },
      data: {
        name: input.name,
        role: input.role,
        passwordHash,
        // A new password ends the sessions signed in with the old one.
        ...(passwordHash ? { sessionVersion: { increment: 1 } } : {}),
        ...(input.disabled === undefined ? {} : { disabledAt: input.disabled ? new Date() : null }),
      },
    });
    await audit(
      tx,
      p,
      "user.update",
      "user",
      after.id,
      { role: before.role, disabled: !!before.disabledAt, name: before.name },
      { role: after.role, disabled: !!after.disabledAt, name: after.name, passwordChanged: !!passwordHash },
    );
    return after;
  });
  if (u.disabledAt || u.role !== "ADMIN") await suspendKeysOf(u.id);
  return userView(u);
}
