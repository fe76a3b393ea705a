// Who is calling, and what they may do. Roles (UI users) and key scopes map onto one permission set,
// so every tRPC procedure and REST route checks the same thing.
import type { Role } from "../platform/db/generated/enums";
import { appError } from "../platform/errors";

/** The scopes a key can be minted with. */
export const SCOPES = ["proxy", "read", "write", "admin", "identity"] as const;
export type Scope = (typeof SCOPES)[number];
/**
 * Minted only by the control plane for one run's trainer (runs/keys.ts): lease, ack, report and logs of that
 * run, nothing else. A trainer key sits in a Ray package or a process environment others may read.
 */
export const TRAINER_SCOPE = "trainer";
export type KeyScope = Scope | typeof TRAINER_SCOPE;
export const KEY_SCOPES: readonly KeyScope[] = [...SCOPES, TRAINER_SCOPE];

/**
 * read: view anything; review: relabel turns; write: change experiments/runs; admin: users and keys; proxy: serve;
 * identity: name the end user (and agent) a proxied turn belongs to (`X-User-Id` / `X-Agent-Id`): the gateway in
 * front of many users asserts who each request is for, so per-user adapters train and serve the right person.
 * trainer: drive a run's batches (lease, ack, report, logs).
 */
export type Permission = "read" | "review" | "write" | "admin" | "proxy" | "identity" | "trainer";

/** Exported for the web app, which words a denied control's reason from this table instead of restating it. */
export const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  ADMIN: ["read", "review", "write", "admin", "identity", "trainer"],
  REVIEWER: ["read", "review"],
  VIEWER: ["read"],
};

const SCOPE_PERMISSIONS: Record<KeyScope, Permission[]> = {
  proxy: ["proxy"],
  read: ["read"],
  write: ["read", "review", "write", "trainer"],
  admin: ["read", "review", "write", "admin", "proxy", "identity", "trainer"],
  identity: ["proxy", "identity"],
  trainer: ["trainer"],
};

export type Principal =
  | { kind: "user"; userId: string; email: string; role: Role }
  | {
      kind: "apiKey";
      keyId: string;
      prefix: string;
      scopes: KeyScope[];
      experimentId: string | null;
      /** A trainer key's run: it may touch no other run. */
      runId: string | null;
      /** The end user a proxy key serves: its turns are that user's (X-User-Id may not name another). */
      endUserId?: string | null;
      createdById: string | null;
    };

export function permissions(p: Principal): Set<Permission> {
  if (p.kind === "user") return new Set(ROLE_PERMISSIONS[p.role]);
  const perms = new Set(p.scopes.flatMap((s) => SCOPE_PERMISSIONS[s]));
  // Users and keys are global: a key bound to one experiment never administers them (it could mint an
  // unbound key or an admin user and leave its binding).
  if (p.experimentId) perms.delete("admin");
  return perms;
}

/** What a set of key scopes grants (to compare a new key with the key that mints it). */
export function scopePermissions(scopes: readonly KeyScope[]): Set<Permission> {
  return new Set(scopes.flatMap((s) => SCOPE_PERMISSIONS[s]));
}

export function can(p: Principal, perm: Permission): boolean {
  return permissions(p).has(perm);
}

export function assertCan(p: Principal, perm: Permission): void {
  if (!can(p, perm)) {
    const who = p.kind === "user" ? `role ${p.role}` : `key scopes [${p.scopes.join(", ")}]`;
    throw appError("missing_permission", `This action needs the '${perm}' permission, which ${who} does not grant`);
  }
}

/** A key bound to one experiment can never touch another's data. */
export function assertExperimentAccess(p: Principal, experimentId: string): void {
  if (p.kind === "apiKey" && p.experimentId && p.experimentId !== experimentId) {
    throw appError("other_experiment", "This API key is bound to a different experiment");
  }
}

/** A key bound to one run (a trainer key) can never touch another run. */
export function assertRunAccess(p: Principal, runId: string): void {
  if (p.kind === "apiKey" && p.runId && p.runId !== runId)
    throw appError("other_run", "This API key is bound to a different run");
}

/** Experiment filter for list queries: bound keys only ever see their experiment. */
export function boundExperimentId(p: Principal): string | null {
  return p.kind === "apiKey" ? p.experimentId : null;
}

/**
 * The user behind a principal: the signed-in user, or the user who created the API key (a key acts on its
 * creator's behalf; null for a key nobody created, e.g. INIT_API_KEY). Every row that records "who" uses this
 * (createdById, updatedById, a label's userId, a reviewer's id, the audit log's actorUserId); the key itself
 * is recorded beside it where the row has room (apiKeyId, actorKeyId).
 */
export function actorUserId(p: Principal): string | null {
  return p.kind === "user" ? p.userId : p.createdById;
}

export function actorOf(p: Principal): { actorUserId: string | null; actorKeyId: string | null } {
  return { actorUserId: actorUserId(p), actorKeyId: p.kind === "apiKey" ? p.keyId : null };
}
