/** Short text forms of shapes, dtypes and counts, shared by labels and the details panel. */
import type { Tensor } from "./document";

/** `[1, 16, 64]` -> `1×16×64`; a scalar reads `scalar`. */
export function formatShape(shape: readonly number[]): string {
  return shape.length === 0 ? "scalar" : shape.join("×");
}

/** Distinct shapes of several tensors, in order, joined by ", ". */
export function formatShapes(tensors: readonly Tensor[]): string {
  const seen: string[] = [];
  for (const t of tensors) {
    const s = formatShape(t.shape);
    if (!seen.includes(s)) seen.push(s);
  }
  return seen.join(", ");
}

/** `1234567` -> `1.23M`; below 1000 the plain number. */
export function formatCount(n: number): string {
  const units: [number, string][] = [
    [1e12, "T"],
    [1e9, "B"],
    [1e6, "M"],
    [1e3, "K"],
  ];
  for (const [size, suffix] of units) {
    if (n >= size) {
      const v = n / size;
      return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)}${suffix}`;
    }
  }
  return String(n);
}

/** `float32 · 1×16×64` style description of one tensor. */
export function formatTensor(t: Tensor): string {
  const grad = t.requires_grad === true ? " · grad" : "";
  return `${formatShape(t.shape)} · ${t.dtype} · ${t.device}${grad}`;
}
