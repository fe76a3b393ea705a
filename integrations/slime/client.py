"""Client of the control plane's batch API (standard library only).

Endpoints (documented in the control plane's OpenAPI document, tag "trainer"):
  POST /api/v1/runs/{run}/batches/lease        {size, minSize, leaseSeconds, requestKey}
  POST /api/v1/runs/{run}/batches/{lease}/ack  {step, metrics, weightVersion, checkpointPath, durationMs}
  POST /api/v1/runs/{run}/report               {metrics, step, weightVersion, rolloutUrl, message,
                                                renewLeaseIds, leaseSeconds}
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable, Mapping

DEFAULT_LEASE_SECONDS = 600


class ControlPlaneError(Exception):
    """The control plane answered with an error (status and its error code/message), or could not be reached."""

    def __init__(self, message: str, status: int | None = None, code: str | None = None):
        super().__init__(message)
        self.status = status
        self.code = code

    @property
    def retryable(self) -> bool:
        # No status: the request never got an answer. 429/5xx: try again later.
        return self.status is None or self.status == 429 or self.status >= 500


@dataclass
class Settings:
    url: str
    api_key: str
    run_id: str

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, cwd: str | None = None) -> "Settings":
        """The key comes from CONTROL_PLANE_API_KEY (local-process and Tinker runs: the child's own environment,
        which nobody else can read) or, when that is unset, from the file OPENCLAW_API_KEY_FILE names (Ray runs:
        the control plane ships the key in the job's working_dir package, because runtime_env.env_vars are shown
        on the Ray dashboard). A relative path is taken against ``cwd`` (default: the process's working
        directory, which for every Ray worker of the job is the unpacked package)."""
        env = os.environ if env is None else env
        missing = [n for n in ("CONTROL_PLANE_URL", "RUN_ID") if not env.get(n)]
        if not env.get("CONTROL_PLANE_API_KEY") and not env.get("OPENCLAW_API_KEY_FILE"):
            missing.insert(1, "CONTROL_PLANE_API_KEY (or OPENCLAW_API_KEY_FILE)")
        if missing:
            raise ControlPlaneError(
                f"missing environment variables {', '.join(missing)}: the control plane sets them when it launches the job"
            )
        api_key = env.get("CONTROL_PLANE_API_KEY") or _key_from_file(env["OPENCLAW_API_KEY_FILE"], cwd)
        return cls(url=env["CONTROL_PLANE_URL"].rstrip("/"), api_key=api_key, run_id=env["RUN_ID"])


def _key_from_file(name: str, cwd: str | None) -> str:
    path = name if os.path.isabs(name) else os.path.join(cwd if cwd is not None else os.getcwd(), name)
    try:
        with open(path, encoding="utf-8") as f:
            key = f.read().strip()
    except OSError as e:
        raise ControlPlaneError(
            f"OPENCLAW_API_KEY_FILE: cannot read the run's key at {path} ({e.strerror}); a Ray job finds it in its "
            "working_dir package, so the process must start there (Ray workers do)"
        ) from None
    if not key:
        raise ControlPlaneError(f"OPENCLAW_API_KEY_FILE: {path} is empty; the control plane writes the run's key there")
    return key


class ControlPlaneClient:
    """One run's view of the batch API. Retries unanswered requests, 429 and 5xx with backoff."""

    def __init__(
        self,
        settings: Settings,
        timeout_s: float = 60.0,
        retries: int = 5,
        backoff_s: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.settings = settings
        self.timeout_s = timeout_s
        self.retries = retries
        self.backoff_s = backoff_s
        self._sleep = sleep

    # -- endpoints -------------------------------------------------------------------------------------

    def lease(
        self, size: int, min_size: int = 1, lease_seconds: int = DEFAULT_LEASE_SECONDS, request_key: str | None = None
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"size": size, "minSize": min_size, "leaseSeconds": lease_seconds}
        if request_key is not None:
            body["requestKey"] = request_key
        return self._post("/batches/lease", body)

    def lease_episodes(
        self, groups: int, min_groups: int = 1, lease_seconds: int = DEFAULT_LEASE_SECONDS, request_key: str | None = None
    ) -> dict[str, Any]:
        """Finished GRPO groups of the experiment's episodes (server/training/leases/episodes.ts), acknowledged with ``ack``."""
        body: dict[str, Any] = {"groups": groups, "minGroups": min_groups, "leaseSeconds": lease_seconds}
        if request_key is not None:
            body["requestKey"] = request_key
        return self._post("/batches/lease-episodes", body)

    def ack(
        self,
        lease_id: str,
        step: int,
        metrics: Mapping[str, float] | None = None,
        weight_version: int | None = None,
        checkpoint_path: str | None = None,
        duration_ms: int | None = None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"step": step, "metrics": _finite(metrics)}
        if weight_version is not None:
            body["weightVersion"] = weight_version
        if checkpoint_path:
            body["checkpointPath"] = checkpoint_path
        if duration_ms is not None:
            body["durationMs"] = int(duration_ms)
        return self._post(f"/batches/{urllib.parse.quote(lease_id, safe='')}/ack", body)

    def report(
        self,
        metrics: Mapping[str, float] | None = None,
        step: int | None = None,
        weight_version: int | None = None,
        rollout_url: str | None = None,
        message: str | None = None,
        renew_lease_ids: list[str] | None = None,
        lease_seconds: int = DEFAULT_LEASE_SECONDS,
        endpoints: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """``endpoints``: extra engine addresses (``prmUrl``, ``prmTeacherUrl``, ``prmModelPath``), added to the body
        as they are; a control plane that does not know them ignores them (its schema strips unknown keys)."""
        body: dict[str, Any] = {"metrics": _finite(metrics), "leaseSeconds": lease_seconds, "renewLeaseIds": renew_lease_ids or []}
        for key, value in (endpoints or {}).items():
            if value:
                body[key] = value
        if step is not None:
            body["step"] = step
        if weight_version is not None:
            body["weightVersion"] = weight_version
        if rollout_url:
            body["rolloutUrl"] = rollout_url
        if message is not None:
            body["message"] = message[:2000]
        return self._post("/report", body)

    # -- transport -------------------------------------------------------------------------------------

    def _post(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        url = f"{self.settings.url}/api/v1/runs/{urllib.parse.quote(self.settings.run_id, safe='')}{path}"
        data = json.dumps(body).encode("utf-8")
        attempt = 0
        while True:
            try:
                return self._once(url, data)
            except ControlPlaneError as err:
                attempt += 1
                if not err.retryable or attempt > self.retries:
                    raise
                self._sleep(getattr(err, "retry_after", None) or self.backoff_s * 2 ** (attempt - 1))

    def _once(self, url: str, data: bytes) -> dict[str, Any]:
        req = urllib.request.Request(
            url,
            data=data,
            method="POST",
            headers={"content-type": "application/json", "authorization": f"Bearer {self.settings.api_key}"},
        )
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as res:
                return json.loads(res.read().decode("utf-8") or "{}")
        except urllib.error.HTTPError as e:
            raw = e.read().decode("utf-8", "replace")
            try:
                error = json.loads(raw).get("error", {})
            except ValueError:
                error = {}
            err = ControlPlaneError(
                f"{e.code} from {url}: {error.get('message') or raw[:300] or e.reason}", status=e.code, code=error.get("code")
            )
            retry_after = e.headers.get("retry-after") if e.headers else None
            if retry_after and retry_after.isdigit():
                err.retry_after = float(retry_after)  # type: ignore[attr-defined]
            raise err from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as e:
            reason = getattr(e, "reason", e)
            raise ControlPlaneError(f"could not reach the control plane at {url}: {reason}") from None


def _finite(metrics: Mapping[str, float] | None) -> dict[str, float]:
    """Drops values JSON and the API cannot carry (NaN, infinities, non-numbers)."""
    out: dict[str, float] = {}
    for name, value in (metrics or {}).items():
        try:
            v = float(value)
        except (TypeError, ValueError):
            continue
        if v == v and v not in (float("inf"), float("-inf")):
            out[str(name)] = v
    return out
