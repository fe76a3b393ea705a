// Shared by the metrics page's charts and the cross-experiment comparison.
export type Axis = "step" | "time";

export const COLORS = ["#5b9cff", "#3ecf8e", "#f5b942", "#ff6b6b", "#7c5cff", "#4dd0e1", "#ff8a65", "#aed581", "#f06292", "#90a4ae"];

export const fmtX = (axis: Axis) => (x: number) => (axis === "time" ? new Date(x).toLocaleTimeString() : String(x));
