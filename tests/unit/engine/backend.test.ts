import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import {
  backendInfo,
  initBackend,
  isEngineFault,
  isFastMatMulActive,
  onEngineFault,
  useFastMatMul,
} from "../../../server/engine/backend";
import { maxAbsDiff, randomArray, refMatMul } from "./helpers";

beforeAll(async () => {
  await initBackend();
});

/** [a shape, b shape, transposeA, transposeB] covering every route of the fast kernel. */
const CASES: Array<[number[], number[], boolean, boolean]> = [
  [[40, 24], [24, 36], false, false], // 2-D plain (XNNPACK already)
  [[24, 40], [24, 36], true, false], // 2-D transposed A → explicit transpose
  [[40, 24], [36, 24], false, true], // 2-D transposed B
  [[24, 40], [36, 24], true, true],
  [[6, 40, 16], [6, 16, 40], false, false], // batched → per-item XNNPACK on heap views
  [[6, 40, 16], [6, 40, 16], false, true], // attention scores q·kᵀ
  [[6, 40, 40], [6, 40, 16], true, false], // backprop of att·v
  [[2, 3, 40, 16], [2, 3, 40, 16], false, true], // rank 4 [B,H,T,hd]
  [[3, 5, 7], [3, 7, 9], false, false], // tiny → stock kernel
  [[1, 1, 16], [1, 16, 300], false, false], // decode-time vector product
];

function run(
  sa: number[],
  sb: number[],
  ta: boolean,
  tb: boolean,
  seed: number,
): { out: Float32Array; shape: number[] } {
  return tf.tidy(() => {
    const a = tf.tensor(
      randomArray(
        sa.reduce((x, y) => x * y),
        seed,
      ),
      sa,
    );
    const b = tf.tensor(
      randomArray(
        sb.reduce((x, y) => x * y),
        seed + 1,
      ),
      sb,
    );
    const r = tf.matMul(a, b, ta, tb);
    return { out: r.dataSync() as Float32Array, shape: r.shape };
  });
}

describe("wasm backend", () => {
  it("initialises once with SIMD and the fast matmul installed", async () => {
    const info = await initBackend();
    expect(info.backend).toBe("wasm");
    expect(info.simd).toBe(true);
    expect(info.fastMatMul).toBe(true);
    expect(await initBackend()).toEqual(info);
  });

  it.each(CASES)(
    "fast BatchMatMul %j·%j (tA=%s, tB=%s) matches the stock kernel and a float64 reference",
    (sa, sb, ta, tb) => {
      useFastMatMul(false);
      const stock = run(sa, sb, ta, tb, 11);
      useFastMatMul(true);
      expect(isFastMatMulActive()).toBe(true);
      const fast = run(sa, sb, ta, tb, 11);
      expect(fast.shape).toEqual(stock.shape);
      expect(maxAbsDiff(fast.out, stock.out)).toBeLessThan(1e-4);

      // Independent check: materialise the transposes in JS and multiply in float64.
      const batch = sa.slice(0, -2).reduce((x, y) => x * y, 1);
      const A = tf.tidy(() => {
        const t = tf.tensor(
          randomArray(
            sa.reduce((x, y) => x * y),
            11,
          ),
          sa,
        );
        return (
          ta
            ? tf.transpose(
                t,
                [...sa.keys()].map((i) => (i < sa.length - 2 ? i : 2 * sa.length - 3 - i)),
              )
            : t
        ).dataSync();
      });
      const B = tf.tidy(() => {
        const t = tf.tensor(
          randomArray(
            sb.reduce((x, y) => x * y),
            12,
          ),
          sb,
        );
        return (
          tb
            ? tf.transpose(
                t,
                [...sb.keys()].map((i) => (i < sb.length - 2 ? i : 2 * sb.length - 3 - i)),
              )
            : t
        ).dataSync();
      });
      const M = fast.shape[fast.shape.length - 2];
      const N = fast.shape[fast.shape.length - 1];
      const K = ta ? sa[sa.length - 2] : sa[sa.length - 1];
      expect(maxAbsDiff(fast.out, refMatMul(A, B, batch, M, K, N))).toBeLessThan(1e-4);
    },
  );

  it("leaves no tensors or heap views behind", () => {
    const before = tf.memory().numTensors;
    for (let i = 0; i < 20; i++) run([4, 32, 16], [4, 16, 32], false, false, i);
    expect(tf.memory().numTensors).toBe(before);
    expect(backendInfo().fastMatMul).toBe(true);
  });
});

describe("an engine fault", () => {
  // (module (func (export "f") unreachable)): calling f traps as an out-of-bounds access in the engine's heap does
  const bytes = new Uint8Array([
    0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 4, 1, 0x60, 0, 0, 3, 2, 1, 0, 7, 5, 1, 1, 0x66, 0, 0, 0x0a, 5, 1, 3, 0, 0, 0x0b,
  ]);
  const f = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports.f as () => void;

  it("is a WebAssembly runtime trap, not an ordinary error", () => {
    let trap: unknown = null;
    try {
      f();
    } catch (e) {
      trap = e;
    }
    expect(isEngineFault(trap)).toBe(true);
    expect(isEngineFault(new Error("memory access out of bounds"))).toBe(false);
    expect(isEngineFault(new RangeError("Invalid array length"))).toBe(false);
  });

  it("inside a kernel reaches the process's listeners once, though the caller catches it", () => {
    let fail: () => void = () => {
      throw new Error("an ordinary kernel failure");
    };
    tf.registerKernel({ kernelName: "OcrlTestFault", backendName: "wasm", kernelFunc: () => (fail(), []) });
    const heard: Error[] = [];
    const stop = onEngineFault((err) => heard.push(err));
    const run = () => {
      try {
        tf.engine().runKernel("OcrlTestFault", { x: tf.scalar(1) }, {});
      } catch {
        // swallowed, as a proxy request or a judge job would turn it into a failure of its own
      }
    };
    try {
      run();
      expect(heard).toHaveLength(0); // an ordinary error is the caller's
      fail = f;
      run();
      run();
      expect(heard).toHaveLength(1);
      expect(isEngineFault(heard[0])).toBe(true);
      const late: Error[] = [];
      onEngineFault((err) => late.push(err))(); // a listener that comes later still hears of it
      expect(late).toEqual(heard);
    } finally {
      stop();
      tf.unregisterKernel("OcrlTestFault", "wasm");
    }
  });
});
