import { createPrisma } from "/work/main/server/platform/db/client.ts";
const db = createPrisma("postgresql://postgres@localhost:5432/postgres");
async function show(label: string, f: () => Promise<unknown>) {
  try { await f(); console.log(label, "no error"); }
  catch (e: any) {
    console.log(label, e.constructor?.name, "code=", e.code, "meta=", JSON.stringify(e.meta), "cause=", e.cause && JSON.stringify({ name: e.cause.name, kind: e.cause.kind, cause: e.cause.cause }), "msg=", String(e.message).slice(0, 200));
  }
}
await show("raw", () => db.$executeRawUnsafe(`DO $$ BEGIN RAISE EXCEPTION 'x' USING ERRCODE = '40001'; END $$`));
await show("raw-in-tx", () => db.$transaction(async (tx) => { await tx.$executeRawUnsafe(`DO $$ BEGIN RAISE EXCEPTION 'x' USING ERRCODE = '40001'; END $$`); }, { isolationLevel: "Serializable" }));
await show("queryRaw", () => db.$queryRawUnsafe(`SELECT 1 FROM (SELECT 1) t WHERE (SELECT 1/0) = 1`));
// a real serialization conflict
await db.$executeRawUnsafe(`CREATE TABLE IF NOT EXISTS probe_t (id int primary key, v int)`);
await db.$executeRawUnsafe(`DELETE FROM probe_t`);
await db.$executeRawUnsafe(`INSERT INTO probe_t VALUES (1, 0)`);
let release!: () => void; const gate = new Promise<void>((r) => (release = r));
let both = 0; const arrive = async () => { both++; if (both === 2) release(); await gate; };
const t = (n: number) => db.$transaction(async (tx) => {
  const rows: any[] = await tx.$queryRawUnsafe(`SELECT sum(v)::int AS s FROM probe_t`);
  await arrive();
  await tx.$executeRawUnsafe(`INSERT INTO probe_t VALUES (${n + 10}, ${rows[0].s})`);
}, { isolationLevel: "Serializable" });
const r = await Promise.allSettled([t(1), t(2)]);
for (const x of r) if (x.status === "rejected") { const e: any = x.reason; console.log("conflict", e.constructor?.name, "code=", e.code, "meta=", JSON.stringify(e.meta), "cause=", e.cause && JSON.stringify({ name: e.cause.name, kind: e.cause.kind, cause: e.cause.cause }), String(e.message).slice(0, 300)); } else console.log("ok");
await db.$executeRawUnsafe(`DROP TABLE probe_t`);
await db.$disconnect();
