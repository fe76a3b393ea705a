"use client";
import { Suspense } from "react";
import { Field } from "../../_ui/Field";
import { Toolbar } from "../../_ui/Toolbar";
import { ExperimentSelect } from "../_components/ExperimentSelect";
import { CompareView } from "./Compare";
import { MetricChart } from "./MetricChart";
import { useExperimentMetrics, useMetricsSearch, type LivePoint } from "./_hooks/useMetricsView";
import type { Axis } from "./chart";

const NO_LIVE = new Map<string, LivePoint[]>();

function MetricsView() {
  const [s] = useMetricsSearch();
  return s.view === "compare" ? <CompareView /> : <ExperimentMetrics />;
}

function ExperimentMetrics() {
  const m = useExperimentMetrics();
  return (
    <>
      <Toolbar title="Metrics">
        <a className="button" href="/metrics?view=compare">
          Compare runs
        </a>
        <span
          className={`live-dot${m.liveState === "ready" ? " on" : ""}`}
          data-testid="live-state"
          data-live={m.liveState}
          title={`live: ${m.liveState}`}
        />
        <span className="muted">{m.liveState === "ready" ? "live" : m.liveState}</span>
      </Toolbar>
      <div className="filters">
        <ExperimentSelect value={m.experimentId} onChange={m.setExperimentId} allowAll={false} />
        <Field label="X axis">
          <select aria-label="X axis" value={m.axis} onChange={(e) => m.setAxis(e.target.value as Axis)}>
            <option value="step">Step</option>
            <option value="time">Time</option>
          </select>
        </Field>
        <Field label={`Smoothing (EMA ${m.alpha.toFixed(2)})`}>
          <input
            aria-label="Smoothing"
            type="range"
            min={0}
            max={0.99}
            step={0.01}
            value={m.alpha}
            onChange={(e) => m.setAlpha(Number(e.target.value))}
          />
        </Field>
        <Field label="Min–max band">
          <select
            aria-label="Min–max band"
            value={m.band ? "on" : "off"}
            onChange={(e) => m.setBand(e.target.value === "on")}
          >
            <option value="on">Shown</option>
            <option value="off">Hidden</option>
          </select>
        </Field>
      </div>
      {m.experimentId && (
        <Toolbar label="Runs to overlay">
          <span className="muted">Overlay:</span>
          <button
            type="button"
            className={`chip${m.runIds.includes("") ? " on" : ""}`}
            aria-pressed={m.runIds.includes("")}
            onClick={() => m.toggleRun("")}
          >
            experiment-level
          </button>
          {m.runs.map((r) => (
            <button
              type="button"
              key={r.id}
              className={`chip${m.runIds.includes(r.id) ? " on" : ""}`}
              aria-pressed={m.runIds.includes(r.id)}
              onClick={() => m.toggleRun(r.id)}
              data-testid={`run-chip-${r.number}`}
            >
              run #{r.number} <span className="muted">{r.status.toLowerCase()}</span>
            </button>
          ))}
        </Toolbar>
      )}
      {!m.experimentId && <div className="empty">Choose an experiment.</div>}
      {m.catalog.error && <div className="form-error">{m.catalog.error.message}</div>}
      {m.experimentId && m.catalog.data && !m.charts.length && (
        <div className="empty">No metrics recorded for these runs yet.</div>
      )}
      <div className="charts">
        {m.charts.map((c) => (
          <MetricChart
            key={c.title}
            experimentId={m.experimentId}
            runIds={m.runIds}
            runLabel={m.runLabel}
            names={c.names}
            title={c.title}
            axis={c.axis}
            unit={c.unit}
            alpha={m.alpha}
            band={m.band}
            live={c.axis === m.axis ? m.live : NO_LIVE}
            axisNote={c.axis !== m.axis ? "time axis: recorded without a step" : undefined}
          />
        ))}
      </div>
    </>
  );
}

export default function MetricsPage() {
  return (
    <Suspense fallback={<div className="muted">Loading…</div>}>
      <MetricsView />
    </Suspense>
  );
}
