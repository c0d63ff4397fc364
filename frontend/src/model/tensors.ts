/** Sizes of tensors from their shape and dtype, and the tensors a drawn edge carries. No DOM. */
import type { Edge, GraphIndex, Tensor } from "./document";
import type { VisibleEdge } from "./visible";

/** Bytes per element by torch dtype name (without "torch."). */
const ELEMENT_BYTES: Readonly<Record<string, number>> = {
  float64: 8, float32: 4, float16: 2, bfloat16: 2, complex128: 16, complex64: 8, complex32: 4,
  int64: 8, int32: 4, int16: 2, int8: 1, uint64: 8, uint32: 4, uint16: 2, uint8: 1, bool: 1,
  qint8: 1, quint8: 1, qint32: 4, float8_e4m3fn: 1, float8_e5m2: 1, float8_e4m3fnuz: 1, float8_e5m2fnuz: 1,
};

/** Bytes of one tensor (numel × element size), or null for a dtype of unknown size. */
export function tensorBytes(t: Tensor): number | null {
  const size = ELEMENT_BYTES[t.dtype];
  if (size === undefined) return null;
  return t.shape.reduce((n, d) => n * d, 1) * size;
}

/** `1536` -> `1.5 KiB`; below 1024 plain bytes. */
export function formatBytes(n: number): string {
  const units = ["KiB", "MiB", "GiB", "TiB"];
  if (n < 1024) return `${n} B`;
  let v = n;
  let unit = "B";
  for (const u of units) {
    if (v < 1024) break;
    v /= 1024;
    unit = u;
  }
  return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} ${unit}`;
}

/** One tensor as it flows: the node output that made it and every node input that reads it. */
export interface TensorFlow {
  readonly source: string;
  readonly sourceOutput: number;
  readonly tensor: Tensor;
  /** All document edges reading this output, in the whole graph (not just the drawn edge). */
  readonly consumers: readonly Edge[];
  /** How many of the consumers the drawn edge stands for. */
  readonly drawn: number;
}

/** The distinct tensors (node outputs) a drawn edge carries, in document order. */
export function edgeTensors(index: GraphIndex, edge: VisibleEdge): TensorFlow[] {
  const key = (e: Edge): string => `${e.source}#${e.source_output}`;
  const drawn = new Map<string, number>();
  const order: Edge[] = [];
  for (const i of edge.edges) {
    const e = index.edges[i];
    if (e === undefined) continue;
    const k = key(e);
    if (!drawn.has(k)) order.push(e);
    drawn.set(k, (drawn.get(k) ?? 0) + 1);
  }
  const wanted = new Set(drawn.keys());
  const consumers = new Map<string, Edge[]>();
  for (const e of index.edges) {
    const k = key(e);
    if (!wanted.has(k)) continue;
    const list = consumers.get(k);
    if (list === undefined) consumers.set(k, [e]);
    else list.push(e);
  }
  return order.map((e) => ({
    source: e.source,
    sourceOutput: e.source_output,
    tensor: e.tensor,
    consumers: consumers.get(key(e)) ?? [],
    drawn: drawn.get(key(e)) ?? 0,
  }));
}
