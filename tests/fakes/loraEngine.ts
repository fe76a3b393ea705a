// A stand-in multi-LoRA engine (SGLang or vLLM) held to the contracts extracted from their source
// (tests/fixtures/lora/*.json, integrations/contracts/extract_lora_routes.py): the adapter routes accept only their
// body models' fields (anything else is a 422, as pydantic/msgspec would refuse it); a chat request names an adapter
// the way the engine reads it (SGLang `lora_path`, vLLM `model`); an adapter it does not hold gets the contract's
// not-loaded error, its message built from the extracted f-string's parts (vLLM: the extracted 404). It can hold
// at most `maxLoaded` adapters and then drops its least recently used one on the next load, as SGLang's registry
// does; `evict` drops one at once (a restart, the engine's own eviction).
//
// It also scores, as the per-user gate asks (server/personalization/engineGate.ts), with bodies held to the same
// extracted models: SGLang `/generate` (GenerateReqInput: `text` or `input_ids`, `return_logprob`,
// `logprob_start_len`, `lora_path`), answering `meta_info.input_token_logprobs` as SGLang builds it (one
// `[logprob, id, null]` per position from `logprob_start_len`, the first one null: tests/fakes/prmServer.ts traces it
// through SGLang's source); vLLM `/tokenize` (TokenizeChatRequest / TokenizeCompletionRequest, answered with
// TokenizeResponse's fields) and `/v1/completions` (CompletionRequest; `echo` + `logprobs`: the prompt's
// `token_logprobs`, first null, then `max_tokens` generated ones). Tokens are characters (id = code point); every
// scored token's log-prob is −1 plus the `skill` of the adapter's folder (0 for the base and unknown folders), so a
// test decides which version makes the replies likelier.
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { LoraEngine } from "../../server/proxy/upstreams/lora";

export interface LoraContract {
  routes: Array<{ path: string; body: string | null }>;
  models: Record<string, { fields: { name: string }[] }>;
  notLoaded: { parts: string[]; status: number | null };
}

export const loraContract = (engine: LoraEngine) =>
  JSON.parse(readFileSync(`tests/fixtures/lora/${engine}.json`, "utf8")) as LoraContract;

/** The engine's not-loaded answer for `name`: the extracted parts around the name (and the loaded list). */
function notLoaded(c: LoraContract, engine: LoraEngine, name: string, loaded: string[]) {
  const fills = [name, `dict_keys(${JSON.stringify(loaded)})`];
  const message = c.notLoaded.parts.map((p, i) => p + (i < c.notLoaded.parts.length - 1 ? fills[i] : "")).join("");
  // SGLang's ValueError reaches the client through its OpenAI layer (400 in current versions); vLLM sets 404.
  const status = c.notLoaded.status ?? 400;
  return engine === "sglang"
    ? { status, body: { object: "error", message, type: "BadRequestError", param: null, code: status } }
    : { status, body: { error: { message, type: "NotFoundError", param: "model", code: status } } };
}

export function fakeLoraEngine(engine: LoraEngine, opts: { baseModel?: string; maxLoaded?: number } = {}) {
  const c = loraContract(engine);
  const baseModel = opts.baseModel ?? "base-model";
  const calls: { path: string; body: Record<string, unknown> }[] = [];
  /** loaded adapters, least recently used first */
  const loaded = new Map<string, string>();
  let refuseLoads = false;
  let loseLoads = false;
  let maxLoaded = opts.maxLoaded ?? Infinity;
  /** per adapter folder: what it adds to every scored token's log-prob */
  const skill = new Map<string, number>();
  const model = (name: string) => c.models[name]!.fields.map((f) => f.name);
  const unknownFields = (body: Record<string, unknown>, name: string) =>
    Object.keys(body).filter((k) => !model(name).includes(k));
  const chars = (text: string) => [...text].map((ch) => ch.codePointAt(0)!);
  const chatText = (messages: { role: string; content?: unknown }[]) =>
    messages.map((m) => `<${m.role}>${typeof m.content === "string" ? m.content : ""}</${m.role}>`).join("") +
    "<assistant>";
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", () => {
      const body = JSON.parse(raw || "{}") as Record<string, unknown>;
      const path = req.url ?? "";
      calls.push({ path, body });
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(json));
      };
      const route = c.routes.find((r) => r.path === path);
      if (route) {
        const allowed = new Set(c.models[route.body!]!.fields.map((f) => f.name));
        const unknown = Object.keys(body).filter((k) => !allowed.has(k));
        if (unknown.length) return send(422, { detail: `unknown fields ${unknown.join(", ")}` });
        const name = String(body.lora_name);
        if (path.endsWith("/load_lora_adapter")) {
          if (refuseLoads) return send(400, { success: false, error_message: "no such adapter folder" });
          if (loaded.has(name))
            return send(400, { success: false, error_message: `LoRA with name ${name} already exists` });
          while (loaded.size >= maxLoaded) loaded.delete(loaded.keys().next().value as string);
          if (!loseLoads) loaded.set(name, String(body.lora_path));
        } else {
          if (!loaded.has(name))
            return send(400, { success: false, error_message: `LoRA with name ${name} does not exist` });
          loaded.delete(name);
        }
        return send(200, { success: true, loaded_adapters: [...loaded.keys()] });
      }
      /** the adapter a scoring request names (null: the base), or the not-loaded answer already sent */
      const scoringAdapter = (name: string | null): { lp: number } | null => {
        if (name === null || name === baseModel) return { lp: -1 };
        if (!loaded.has(name)) {
          const e = notLoaded(c, engine, name, [...loaded.keys()]);
          send(e.status, e.body);
          return null;
        }
        return { lp: -1 + (skill.get(loaded.get(name)!) ?? 0) };
      };
      if (engine === "sglang" && path === "/generate") {
        const unknown = unknownFields(body, "GenerateReqInput");
        if (unknown.length) return send(422, { detail: `unknown fields ${unknown.join(", ")}` });
        const scored = scoringAdapter((body.lora_path as string | undefined) ?? null);
        if (!scored) return;
        const ids = (body.input_ids as number[] | undefined) ?? chars(String(body.text ?? ""));
        const start = Number(body.logprob_start_len ?? -1) === -1 ? ids.length - 1 : Number(body.logprob_start_len);
        if (start >= ids.length)
          return send(400, { error: "logprob_start_len is higher than the number of input tokens" });
        const entries = body.return_logprob
          ? ids.slice(start).map((id, j) => [j === 0 ? null : scored.lp, id, null])
          : [];
        return send(200, { text: "", meta_info: { input_token_logprobs: entries, output_token_logprobs: [] } });
      }
      if (engine === "vllm" && path === "/tokenize") {
        const kind = "messages" in body ? "TokenizeChatRequest" : "TokenizeCompletionRequest";
        const unknown = unknownFields(body, kind);
        if (unknown.length) return send(422, { detail: `unknown fields ${unknown.join(", ")}` });
        const tokens = chars(
          kind === "TokenizeChatRequest"
            ? chatText(body.messages as { role: string; content?: unknown }[])
            : String(body.prompt),
        );
        // Only TokenizeResponse's fields: a contract without `tokens` would leave the client nothing to read.
        const all = { count: tokens.length, max_model_len: 32768, tokens };
        return send(
          200,
          Object.fromEntries(Object.entries(all).filter(([k]) => model("TokenizeResponse").includes(k))),
        );
      }
      if (engine === "vllm" && path === "/v1/completions") {
        const unknown = unknownFields(body, "CompletionRequest");
        if (unknown.length) return send(422, { detail: `unknown fields ${unknown.join(", ")}` });
        const scored = scoringAdapter(String(body.model));
        if (!scored) return;
        const prompt = body.prompt as number[];
        const generated = Number(body.max_tokens ?? 16);
        const token_logprobs = body.echo
          ? [null, ...prompt.slice(1).map(() => scored.lp), ...Array.from({ length: generated }, () => -0.5)]
          : Array.from({ length: generated }, () => -0.5);
        return send(200, {
          id: "cmpl-1",
          object: "text_completion",
          created: 0,
          model: String(body.model),
          choices: [{ index: 0, text: "", finish_reason: "length", logprobs: { token_logprobs } }],
        });
      }
      if (path === "/v1/chat/completions") {
        const adapter = engine === "sglang" ? ((body.lora_path as string | undefined) ?? null) : String(body.model);
        const named = adapter !== null && adapter !== baseModel ? adapter : null;
        if (named !== null) {
          if (!loaded.has(named)) {
            const e = notLoaded(c, engine, named, [...loaded.keys()]);
            return send(e.status, e.body);
          }
          const folder = loaded.get(named)!;
          loaded.delete(named);
          loaded.set(named, folder);
        }
        return send(200, {
          id: "c1",
          object: "chat.completion",
          created: 0,
          model: String(body.model),
          choices: [
            {
              index: 0,
              finish_reason: "stop",
              message: {
                role: "assistant",
                content: named ? `served by ${named} from ${loaded.get(named)}` : "served by base",
              },
            },
          ],
        });
      }
      send(404, {});
    });
  });
  return {
    calls,
    loaded,
    refuse: (on: boolean) => (refuseLoads = on),
    /** loads answer success but the adapter is gone by the next request (an engine evicting under pressure) */
    lose: (on: boolean) => (loseLoads = on),
    limit: (n: number) => (maxLoaded = n),
    /** what the adapter in `folder` adds to every scored token's log-prob */
    skill: (folder: string, add: number) => skill.set(folder, add),
    evict: (name: string) => loaded.delete(name),
    /** the adapter names chat requests carried, in order (null: the base) */
    served: () =>
      calls
        .filter((x) => x.path === "/v1/chat/completions")
        .map((x) => {
          const a = engine === "sglang" ? ((x.body.lora_path as string | undefined) ?? null) : String(x.body.model);
          return a === baseModel ? null : a;
        }),
    start: () =>
      new Promise<string>((r) =>
        server.listen(0, "127.0.0.1", () => r(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`)),
      ),
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}
