// The proxy marks a session and its turns as simulated from `X-Simulated-Persona`, but only for keys that may
// change experiments (write/admin); a plain proxy key's header is ignored, so real traffic cannot be hidden
// behind the flag.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { db } from "../../../server/platform/db/client";
import { makeKey, uniq } from "../../helpers/fixtures";
import { harness, type Harness } from "../proxy/setup";

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(() => h.close());

async function ask(client: OpenAI, sid: string, persona: string | null) {
  const headers: Record<string, string> = { "X-Session-Id": sid, "X-Turn-Type": "main" };
  if (persona) headers["X-Simulated-Persona"] = persona;
  await client.chat.completions.create(
    { model: h.experiment.slug, messages: [{ role: "user", content: "Hello?" }] },
    { headers },
  );
}

async function recorded(sid: string) {
  await h.proxy.writer.drain();
  const s = await db().agentSession.findUniqueOrThrow({
    where: { experimentId_externalId: { experimentId: h.experiment.id, externalId: sid } },
  });
  const turns = await db().turn.findMany({ where: { sessionId: s.id }, select: { simulated: true } });
  return { simulated: s.simulated, persona: s.persona, turns: turns.map((t) => t.simulated) };
}

describe("simulated traffic flag", () => {
  it("is set from X-Simulated-Persona for a proxy+write key", async () => {
    const client = new OpenAI({
      apiKey: await makeKey(["proxy", "write"]),
      baseURL: `${h.proxy.url}/v1`,
      maxRetries: 0,
    });
    const sid = uniq("sim");
    await ask(client, sid, "leo");
    await ask(client, sid, "leo");
    expect(await recorded(sid)).toEqual({ simulated: true, persona: "leo", turns: [true, true] });
  });

  it("is ignored for a proxy-only key, and absent without the header", async () => {
    const proxyOnly = new OpenAI({ apiKey: h.key, baseURL: `${h.proxy.url}/v1`, maxRetries: 0 });
    const spoofed = uniq("spoof");
    await ask(proxyOnly, spoofed, "leo");
    expect(await recorded(spoofed)).toEqual({ simulated: false, persona: null, turns: [false] });

    const writer = new OpenAI({
      apiKey: await makeKey(["proxy", "write"]),
      baseURL: `${h.proxy.url}/v1`,
      maxRetries: 0,
    });
    const plain = uniq("real");
    await ask(writer, plain, null);
    expect(await recorded(plain)).toEqual({ simulated: false, persona: null, turns: [false] });
  });

  it("ignores a malformed persona name", async () => {
    const client = new OpenAI({
      apiKey: await makeKey(["proxy", "write"]),
      baseURL: `${h.proxy.url}/v1`,
      maxRetries: 0,
    });
    const sid = uniq("bad");
    await ask(client, sid, "leo; DROP TABLE turns");
    expect(await recorded(sid)).toEqual({ simulated: false, persona: null, turns: [false] });
  });
});
