// A reviewer relabels a turn directly only where no review queue with assigned reviewers holds it, or where they
// are one of those reviewers (issue #26.12): through the real REST entry point with each user's sign-in cookie.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { startApiServer } from "../../helpers/apiServer";
import { api, login, makeExperiment, makeUser, uniq } from "../../helpers/fixtures";
import { seedSession } from "../dashboard/seed";

let server: Awaited<ReturnType<typeof startApiServer>>;
beforeAll(async () => {
  server = await startApiServer();
});
afterAll(() => server.close());

async function as(role: "ADMIN" | "REVIEWER") {
  const u = await makeUser(role);
  return { id: u.id, call: api(server.url, { cookie: await login(server.url, u.email, u.password) }) };
}

describe("relabelling outside one's review queues", () => {
  it("refuses a reviewer not assigned to the queues holding the turn, and nothing is stored", async () => {
    const exp = await makeExperiment({ method: "grpo" });
    const { turns } = await seedSession(exp.id, [
      { user: "queued", reply: "a" },
      { user: "free", reply: "b", next: "ok" },
    ]);
    const [queued, free] = [turns[0]!.id, turns[1]!.id];
    const [assigned, outsider, admin] = [await as("REVIEWER"), await as("REVIEWER"), await as("ADMIN")];
    await db().reviewQueue.create({
      data: {
        experimentId: exp.id,
        name: uniq("q"),
        assignees: { create: [{ userId: assigned.id }] },
        items: { create: [{ turnId: queued }] },
      },
    });

    const refused = await outsider.call("POST", "/api/v1/labels", { turnId: queued, value: 1 });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "FORBIDDEN", reason: "not_assigned" });
    expect(await db().label.count({ where: { turnId: queued } })).toBe(0);

    // The queue's own reviewer, and an editor, relabel it; a turn in no assigned queue is open to every reviewer.
    expect((await assigned.call("POST", "/api/v1/labels", { turnId: queued, value: 1 })).status).toBe(201);
    expect((await admin.call("POST", "/api/v1/labels", { turnId: queued, value: -1 })).status).toBe(201);
    expect((await outsider.call("POST", "/api/v1/labels", { turnId: free, value: 1 })).status).toBe(201);

    // An archived queue no longer holds its turns back.
    await db().reviewQueue.updateMany({ where: { experimentId: exp.id }, data: { archivedAt: new Date() } });
    expect((await outsider.call("POST", "/api/v1/labels", { turnId: queued, value: 0 })).status).toBe(201);
  });
});
