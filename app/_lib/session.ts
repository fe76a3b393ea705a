import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { principalFromSessionCookie } from "../../server/access/session";
import { permissions, type Principal } from "../../server/access/principal";

/** Server components: the signed-in user, or a redirect to /login. */
export async function requireUser(): Promise<Extract<Principal, { kind: "user" }> & { permissions: string[] }> {
  const jar = await cookies();
  const principal = await principalFromSessionCookie(jar.toString());
  if (!principal || principal.kind !== "user") redirect("/login");
  return { ...principal, permissions: [...permissions(principal)] };
}
