"use client";
// How to point an agent at this experiment: the proxy's base URL, the model slug, a key, and the OpenClaw
// provider block of docs/connect-openclaw.md filled in.
import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "../../../_lib/trpc";
import { GuardedLink } from "../../_components/Permission";
import { CopyButton } from "../../_components/CopyButton";

export function ConnectAgent({ experimentId, slug }: { experimentId: string; slug: string }) {
  const trpc = useTRPC();
  const info = useQuery(trpc.experiments.connectInfo.queryOptions());
  // The host is only known in the browser (after hydration).
  const [origin, setOrigin] = useState<string | null>(null);
  useEffect(() => setOrigin(`${window.location.protocol}//${window.location.hostname}`), []);
  const baseUrl = info.data
    ? `${(info.data.proxyUrl ?? `${origin ?? "http://<proxy-host>"}:${info.data.proxyPort}`).replace(/\/$/, "")}/v1`
    : "…";
  const provider = JSON.stringify(
    {
      models: {
        mode: "replace",
        providers: {
          "openclaw-rl": {
            baseUrl,
            apiKey: "<your proxy key>",
            api: "openai-completions",
            models: [{ id: slug, name: "Personal policy", contextWindow: 32768, maxTokens: 8192 }],
          },
        },
      },
      agents: { defaults: { model: { primary: `openclaw-rl/${slug}` } } },
    },
    null,
    2,
  );
  const curl = `curl ${baseUrl}/chat/completions \\\n  -H "Authorization: Bearer <your proxy key>" -H "Content-Type: application/json" \\\n  -d '{"model": "${slug}", "messages": [{"role": "user", "content": "Hello"}]}'`;
  return (
    <div className="card" data-testid="connect-agent">
      <div className="toolbar">
        <h3 style={{ margin: 0 }}>Connect your agent</h3>
        <span className="spacer" />
        <GuardedLink perm="admin" href={`/settings/keys?experimentId=${experimentId}`}>
          Create a proxy key for it
        </GuardedLink>
      </div>
      <dl className="kv">
        <dt>Base URL</dt>
        <dd className="mono" data-testid="connect-base-url">
          {baseUrl}
        </dd>
        <dt>Model</dt>
        <dd className="mono">{slug}</dd>
        <dt>Key</dt>
        <dd>
          a key with the <b>proxy</b> scope, bound to this experiment (then any model name serves it)
        </dd>
      </dl>
      <details style={{ marginTop: 10 }}>
        <summary className="muted">
          OpenClaw provider block (<code>openclaw.json</code>)
        </summary>
        <div className="snippet">
          <CopyButton text={provider} />
          <pre data-testid="connect-openclaw">{provider}</pre>
        </div>
      </details>
      <details>
        <summary className="muted">Any OpenAI client (curl)</summary>
        <div className="snippet">
          <CopyButton text={curl} />
          <pre>{curl}</pre>
        </div>
      </details>
      <p className="muted" style={{ fontSize: 12, marginBottom: 0 }}>
        Session headers, turn types and what the proxy infers without them: docs/connect-openclaw.md.
      </p>
    </div>
  );
}
