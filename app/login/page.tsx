"use client";
import { useRouter, useSearchParams } from "next/navigation";
import { Suspense, useState, type FormEvent } from "react";

function LoginForm() {
  const router = useRouter();
  const next = useSearchParams().get("next") ?? "/experiments";
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const form = new FormData(e.currentTarget);
    const res = await fetch("/api/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: form.get("email"), password: form.get("password") }),
    });
    setBusy(false);
    if (res.ok) {
      router.replace(next.startsWith("/") ? next : "/experiments");
      router.refresh();
    } else {
      const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
      setError(body?.error?.message ?? `Sign-in failed (${res.status})`);
    }
  }

  return (
    <form className="card" onSubmit={onSubmit}>
      {error && (
        <div className="form-error" role="alert">
          {error}
        </div>
      )}
      <label className="field">
        <span>Email</span>
        <input name="email" type="email" autoComplete="username" required autoFocus />
      </label>
      <br />
      <label className="field">
        <span>Password</span>
        <input name="password" type="password" autoComplete="current-password" required />
      </label>
      <br />
      <button className="primary" type="submit" disabled={busy} style={{ width: "100%" }}>
        {busy ? "Signing in…" : "Sign in"}
      </button>
      <p className="muted" style={{ fontSize: 12 }}>
        The first admin&apos;s credentials are printed once by <code>npm start</code>.
      </p>
    </form>
  );
}

export default function LoginPage() {
  return (
    <div className="login">
      <h1>OpenClaw-RL Console</h1>
      <Suspense>
        <LoginForm />
      </Suspense>
    </div>
  );
}
