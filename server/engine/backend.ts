/**
 * One-time initialisation of the tfjs wasm backend, plus a faster `BatchMatMul` kernel.
 *
 * Why: on wasm only a plain (non-transposed) product with batch 1 reaches XNNPACK (~20 GFLOP/s);
 * transposed and batched products run in a naive C++ loop at 1–2 GFLOP/s, and backprop and
 * attention use exactly those. The override routes every product to the fast path:
 *   - explicit transposes first (the wasm Transpose kernel is fast);
 *   - batch 1: the stock kernel, which now takes its XNNPACK path;
 *   - batch > 1: one XNNPACK product per batch item, on tensor views that alias slices of the
 *     inputs on the wasm heap (no copies in, one copy out);
 *   - tiny products (decode-time attention) and broadcast batches: the stock kernel unchanged.
 * Measured on this machine it beats a register-tiled JS kernel 2.5×. It reaches into
 * tfjs-backend-wasm internals (`dataIdMap`, `makeOutput`, the heap), which is why package.json pins
 * tfjs 4.22.0 exactly.
 */
import * as tf from "@tensorflow/tfjs-core";
import { setWasmPaths, type BackendWasm } from "@tensorflow/tfjs-backend-wasm";
import { createRequire } from "node:module";
import path from "node:path";
import { registerGradients } from "./gradients";

type KernelArgs = Parameters<tf.KernelFunc>[0];

/** Below this many multiply-adds per product the stock kernel's lower fixed cost wins (~6 µs). */
const TINY_PRODUCT_MACS = 8_192;

// tfjs-core's registry lives in node_modules and outlives re-evaluations of this module (e.g. one
// Vitest worker running several files), so the stock kernel is remembered on globalThis.
const STOCK_KEY = Symbol.for("openclaw.engine.stockBatchMatMul");
const FAST_MARK = Symbol.for("openclaw.engine.fastBatchMatMul");
type GlobalSlots = { [STOCK_KEY]?: tf.KernelConfig };
const slots = globalThis as unknown as GlobalSlots;

let initPromise: Promise<BackendInfo> | null = null;

export interface BackendInfo {
  backend: string;
  simd: boolean;
  threads: boolean;
  fastMatMul: boolean;
}

/** Folder holding the .wasm binaries shipped inside the npm package. */
function wasmDir(): string {
  const resolved: unknown = createRequire(import.meta.url).resolve("@tensorflow/tfjs-backend-wasm");
  // Bundled into the web app (Next), resolve answers a module id, not a path (seen in the Users page's Compare): the
  // package then sits in node_modules under the working directory, as `npm start` and the tests run it.
  const main =
    typeof resolved === "string"
      ? resolved
      : path.join(process.cwd(), "node_modules", "@tensorflow", "tfjs-backend-wasm", "dist", "index.js");
  return path.dirname(main) + path.sep;
}

/** Initialise the wasm backend once per process, register gradients, install the fast matmul. Idempotent. */
export function initBackend(): Promise<BackendInfo> {
  initPromise ??= (async () => {
    if (tf.getBackend() !== "wasm") {
      if (tf.findBackend("wasm") == null) setWasmPaths(wasmDir());
      const ok = await tf.setBackend("wasm");
      if (!ok) throw new Error("tfjs wasm backend failed to initialise");
    }
    await tf.ready();
    watchForFaults();
    registerGradients();
    useFastMatMul(true);
    return backendInfo();
  })();
  return initPromise;
}

export function backendInfo(): BackendInfo {
  return {
    backend: tf.getBackend(),
    simd: tf.env().getBool("WASM_HAS_SIMD_SUPPORT"),
    threads: tf.env().getBool("WASM_HAS_MULTITHREAD_SUPPORT"),
    fastMatMul: isFastMatMulActive(),
  };
}

function stockKernel(): tf.KernelConfig {
  if (!slots[STOCK_KEY]) {
    const current = tf.getKernel(tf.BatchMatMul, "wasm");
    if (!current || FAST_MARK in current.kernelFunc) throw new Error("stock BatchMatMul kernel not found");
    slots[STOCK_KEY] = current;
  }
  return slots[STOCK_KEY];
}

export function isFastMatMulActive(): boolean {
  const k = tf.getKernel(tf.BatchMatMul, "wasm");
  return k != null && FAST_MARK in k.kernelFunc;
}

/** Switch between the fast kernel and the stock one (tests and the bench compare both). */
export function useFastMatMul(on: boolean): void {
  if (tf.getBackend() !== "wasm") throw new Error("initBackend() first");
  if (on === isFastMatMulActive()) return;
  const stock = stockKernel();
  tf.unregisterKernel(tf.BatchMatMul, "wasm");
  if (on) {
    const kernelFunc = Object.assign(fastBatchMatMul as tf.KernelFunc, { [FAST_MARK]: true });
    tf.registerKernel({ kernelName: tf.BatchMatMul, backendName: "wasm", kernelFunc });
  } else {
    tf.registerKernel(stock);
  }
}

function runKernel(
  name: string,
  backend: BackendWasm,
  inputs: KernelArgs["inputs"],
  attrs: tf.NamedAttrMap,
): tf.TensorInfo {
  const k = name === tf.BatchMatMul ? stockKernel() : tf.getKernel(name, "wasm");
  return k.kernelFunc({ inputs, backend, attrs }) as tf.TensorInfo;
}

function fastBatchMatMul(args: KernelArgs): tf.TensorInfo {
  const backend = args.backend as BackendWasm;
  const { a, b } = args.inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
  const transposeA = Boolean(args.attrs?.transposeA);
  const transposeB = Boolean(args.attrs?.transposeB);
  const stock = () => runKernel(tf.BatchMatMul, backend, { a, b }, { transposeA, transposeB });
  if (a.dtype !== "float32" || b.dtype !== "float32") return stock();

  const ra = a.shape.length;
  const rb = b.shape.length;
  const M = transposeA ? a.shape[ra - 1] : a.shape[ra - 2];
  const K = transposeA ? a.shape[ra - 2] : a.shape[ra - 1];
  const N = transposeB ? b.shape[rb - 2] : b.shape[rb - 1];
  const batch = tf.util.sizeFromShape(a.shape.slice(0, -2));
  const sameOuter = ra === rb && a.shape.slice(0, -2).every((d, i) => d === b.shape[i]);
  if (M * N * K < TINY_PRODUCT_MACS || !sameOuter) return stock();

  const temps: tf.TensorInfo[] = [];
  const as3d = (x: tf.TensorInfo, rows: number, cols: number, transpose: boolean): tf.TensorInfo => {
    const r = runKernel("Reshape", backend, { x }, { shape: [batch, rows, cols] });
    temps.push(r);
    if (!transpose) return r;
    const t = runKernel("Transpose", backend, { x: r }, { perm: [0, 2, 1] });
    temps.push(t);
    return t;
  };
  const plain = { transposeA: false, transposeB: false };
  try {
    const a3 = as3d(a, transposeA ? K : M, transposeA ? M : K, transposeA);
    const b3 = as3d(b, transposeB ? N : K, transposeB ? K : N, transposeB);
    const outShape = [...a.shape.slice(0, -2), M, N];
    if (batch === 1) {
      const out = runKernel(tf.BatchMatMul, backend, { a: a3, b: b3 }, plain);
      return { ...out, shape: outShape };
    }
    const out = backend.makeOutput(outShape, "float32");
    for (let p = 0; p < batch; p++) {
      const av = heapView(backend, a3, p * M * K, [1, M, K]);
      const bv = heapView(backend, b3, p * K * N, [1, K, N]);
      try {
        const r = runKernel(tf.BatchMatMul, backend, { a: av, b: bv }, plain);
        const src = offsetOf(backend, r) / 4;
        backend.wasm.HEAPF32.copyWithin(offsetOf(backend, out) / 4 + p * M * N, src, src + M * N);
        backend.disposeData(r.dataId);
      } finally {
        dropHeapView(backend, av);
        dropHeapView(backend, bv);
      }
    }
    return out;
  } finally {
    for (const t of temps) backend.disposeData(t.dataId);
  }
}

function offsetOf(backend: BackendWasm, t: tf.TensorInfo): number {
  return backend.dataIdMap.get(t.dataId)!.memoryOffset as number;
}

/** A tensor aliasing `shape`-many floats of `src` from element `start`; never freed, only dropped. */
function heapView(backend: BackendWasm, src: tf.TensorInfo, start: number, shape: number[]): tf.TensorInfo {
  return backend.makeOutput(shape, "float32", offsetOf(backend, src) + start * 4);
}

/** Unregister a view without freeing its memory (it belongs to the source tensor). The C++ side
 * drops its record, including any XNNPACK operator it cached for this id. */
function dropHeapView(backend: BackendWasm, view: tf.TensorInfo): void {
  const { id } = backend.dataIdMap.get(view.dataId)!;
  backend.dataIdMap.delete(view.dataId);
  backend.wasm.tfjs.disposeData(id as number);
}

/**
 * A fault of the engine's WebAssembly runtime (an out-of-bounds memory access, an abort). After one, the wasm heap
 * cannot be trusted and every later kernel fails alike: the process should end and be started afresh.
 */
export function isEngineFault(err: unknown): boolean {
  return err instanceof WebAssembly.RuntimeError;
}

// The process's first engine fault and who wants to hear of it, on globalThis for the reason the stock kernel is.
const FAULT_KEY = Symbol.for("openclaw.engine.fault");
const WATCHED = Symbol.for("openclaw.engine.faultWatch");
type FaultSlot = { fault: Error | null; listeners: Set<(err: Error) => void> };
const faultSlots = globalThis as unknown as { [FAULT_KEY]?: FaultSlot };
const faultSlot = (faultSlots[FAULT_KEY] ??= { fault: null, listeners: new Set() });

/**
 * Calls `listener` with the first engine fault in this process, whoever caught the error (a proxy request, a judge's
 * teacher, a training step): a worker stops on it to be restarted (workers/engineFault.ts). Returns an unsubscribe.
 */
export function onEngineFault(listener: (err: Error) => void): () => void {
  faultSlot.listeners.add(listener);
  if (faultSlot.fault) listener(faultSlot.fault);
  return () => faultSlot.listeners.delete(listener);
}

function noteFault(err: unknown): void {
  if (!isEngineFault(err) || faultSlot.fault) return;
  faultSlot.fault = err as Error;
  for (const listener of faultSlot.listeners) listener(faultSlot.fault);
}

/**
 * Every kernel, every tensor made and every tensor freed passes through tfjs's engine, so a trap is noted there
 * before any caller can turn it into an ordinary failure (a 502, a failed judge job) and go on with a broken heap.
 */
function watchForFaults(): void {
  const engine = tf.engine() as ReturnType<typeof tf.engine> & { [WATCHED]?: true };
  if (engine[WATCHED]) return;
  engine[WATCHED] = true;
  for (const name of ["runKernel", "makeTensor", "disposeTensor"] as const) {
    const original = engine[name].bind(engine) as (...args: unknown[]) => unknown;
    (engine as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      try {
        return original(...args);
      } catch (err) {
        noteFault(err);
        throw err;
      }
    };
  }
}
