/**
 * The insight measures of a document (FLOPs, activation bytes, parameters, measured time,
 * non-finite values): which ones it carries, each node's and module call's figure, the whole
 * model's total, and the ranked hot spots. Computed on first use per document, never at
 * mount, so the first view costs nothing extra. No DOM here.
 */
import type { GraphIndex, ModuleCall, Node, Tensor } from "./document";
import type { TensorStats } from "./schema.generated";

export const MEASURES = ["flops", "bytes", "params", "time", "nonfinite"] as const;
export type MeasureKey = (typeof MEASURES)[number];
/** The "colour by" choice: a measure, or none. */
export type ColourBy = MeasureKey | "none";

export type { TensorStats };

export function nodeTime(node: Node): number | undefined {
  return node.time_us;
}

export function moduleTime(module: ModuleCall): number | undefined {
  return module.time_us;
}

export function tensorStats(tensor: Tensor | undefined): TensorStats | undefined {
  return tensor?.stats ?? undefined;
}

/** The document's `first_nonfinite`: the op that first made a NaN or Inf from finite inputs. */
export function firstNonfinite(index: GraphIndex): string | null {
  const id = index.doc.first_nonfinite;
  return typeof id === "string" && index.nodes.has(id) ? id : null;
}

/** Non-finite values (NaN, +Inf, −Inf) among a node's outputs, or undefined without stats. */
export function nonfiniteCount(node: Node): number | undefined {
  let total: number | undefined;
  for (const t of node.outputs ?? []) {
    const s = tensorStats(t);
    if (s !== undefined) total = (total ?? 0) + s.nan + s.posinf + s.neginf;
  }
  return total;
}

export interface MeasureInfo {
  readonly key: MeasureKey;
  /** The control's text. */
  readonly label: string;
  /** What a figure counts, for the legend ("FLOPs", "activation bytes"). */
  readonly noun: string;
  /** Why a document can lack it, and what to do. */
  readonly missing: string;
}

export const MEASURE_INFO: Readonly<Record<MeasureKey, MeasureInfo>> = {
  flops: { key: "flops", label: "FLOPs", noun: "FLOPs", missing: "FLOPs: this document has none; trace it again with vista-core 1.1 or later" },
  bytes: { key: "bytes", label: "Activation bytes", noun: "activation bytes", missing: "activation bytes: this document has none; trace it again with vista-core 1.1 or later" },
  params: { key: "params", label: "Parameters", noun: "parameters", missing: "parameters: the model has none" },
  time: { key: "time", label: "Time", noun: "measured time", missing: "time: trace with timing=True" },
  nonfinite: { key: "nonfinite", label: "Non-finite", noun: "non-finite values (NaN, ±Inf)", missing: "non-finite: trace with stats=True" },
};

/** A figure in the measure's unit: "2.10 GFLOP", "3.00 MiB", "1.2M", "350 µs", "12 NaN/Inf". */
export function formatMeasure(key: MeasureKey, value: number): string {
  switch (key) {
    case "flops":
      return `${scaled(value, ["", "K", "M", "G", "T", "P"], 1000)}FLOP`;
    case "bytes":
      return `${scaled(value, ["", "Ki", "Mi", "Gi", "Ti"], 1024)}B`;
    case "params":
      return scaled(value, ["", "K", "M", "B", "T"], 1000).trim();
    case "time":
      return value >= 1e6 ? `${(value / 1e6).toPrecision(3)} s` : value >= 1e3 ? `${(value / 1e3).toPrecision(3)} ms` : `${value.toPrecision(3)} µs`;
    case "nonfinite":
      return `${value.toLocaleString("en-US")} NaN/Inf`;
  }
}

function scaled(value: number, units: readonly string[], base: number): string {
  let v = value;
  for (let i = 0; i < units.length; i++) {
    if (Math.abs(v) < base || i === units.length - 1) {
      const text = i === 0 ? String(Math.round(v)) : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
      return `${text} ${units[i] ?? ""}`;
    }
    v /= base;
  }
  return String(value);
}

/** "12.5%", "<0.1%". */
export function formatShare(share: number): string {
  if (!Number.isFinite(share) || share <= 0) return "0%";
  if (share < 0.001) return "<0.1%";
  return `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`;
}

/**
 * The figures of one document, computed on first use: the figure of a node, of a module call
 * (its whole subtree), of several calls (a folded run), and of the whole model.
 */
export class Insight {
  private readonly nonfiniteOfModule = new Map<string, number>();
  private nonfiniteDone = false;
  private readonly reasons = new Map<MeasureKey, string | null>();

  constructor(readonly index: GraphIndex) {}

  /** Null when the document carries the measure, else why not and what to do (a tooltip). */
  missing(key: MeasureKey): string | null {
    let reason = this.reasons.get(key);
    if (reason === undefined) {
      reason = this.has(key) ? null : MEASURE_INFO[key].missing;
      this.reasons.set(key, reason);
    }
    return reason;
  }

  private has(key: MeasureKey): boolean {
    const { doc } = this.index;
    switch (key) {
      case "flops":
        return doc.modules.some((m) => typeof m.flops === "number") || doc.nodes.some((n) => typeof n.flops === "number");
      case "bytes":
        return doc.modules.some((m) => typeof m.bytes === "number") || doc.nodes.some((n) => n.kind === "op" && typeof n.bytes === "number");
      case "params":
        return (this.index.modules.get(this.index.root)?.num_params ?? 0) > 0;
      case "time":
        return doc.modules.some((m) => moduleTime(m) !== undefined) || doc.nodes.some((n) => nodeTime(n) !== undefined);
      case "nonfinite":
        return doc.nodes.some((n) => nonfiniteCount(n) !== undefined);
    }
  }

  /** A node's own figure; undefined where the measure does not apply (inputs, view ops without FLOPs). */
  node(key: MeasureKey, node: Node): number | undefined {
    switch (key) {
      case "flops":
        return node.kind === "op" || node.kind === "error" ? node.flops : undefined;
      case "bytes":
        return node.kind === "op" || node.kind === "error" ? node.bytes : undefined;
      case "params":
        // Buffers are no parameters (num_params leaves them out too).
        return node.kind === "parameter" ? numel(node.outputs?.[0]) : undefined;
      case "time":
        return nodeTime(node);
      case "nonfinite":
        return nonfiniteCount(node);
    }
  }

  /** A module call's figure, over its whole subtree. */
  module(key: MeasureKey, module: ModuleCall): number | undefined {
    switch (key) {
      case "flops":
        return module.flops;
      case "bytes":
        return module.bytes;
      case "params":
        return module.num_params;
      case "time":
        return moduleTime(module);
      case "nonfinite":
        return this.subtreeNonfinite().get(module.id);
    }
  }

  /** The figure of several module calls (a folded run), or undefined when none has it. */
  modules(key: MeasureKey, ids: readonly string[]): number | undefined {
    let total: number | undefined;
    for (const id of ids) {
      const m = this.index.modules.get(id);
      const v = m === undefined ? undefined : this.module(key, m);
      if (v !== undefined) total = (total ?? 0) + v;
    }
    return total;
  }

  /** The whole model's figure: the root call's, the share's denominator. */
  whole(key: MeasureKey): number | undefined {
    const root = this.index.modules.get(this.index.root);
    return root === undefined ? undefined : this.module(key, root);
  }

  /** The share of the whole a figure is, or undefined without a whole. */
  share(key: MeasureKey, value: number | undefined): number | undefined {
    const whole = this.whole(key);
    return value === undefined || whole === undefined || whole <= 0 ? undefined : value / whole;
  }

  /** Non-finite counts summed over each module call's subtree (the document has none per call). */
  private subtreeNonfinite(): ReadonlyMap<string, number> {
    if (this.nonfiniteDone) return this.nonfiniteOfModule;
    this.nonfiniteDone = true;
    const sums = this.nonfiniteOfModule;
    if (this.missing("nonfinite") !== null) return sums;
    for (const n of this.index.doc.nodes) {
      const c = nonfiniteCount(n);
      if (c !== undefined) sums.set(n.module, (sums.get(n.module) ?? 0) + c);
    }
    // Reverse preorder visits children before their parents.
    const order = this.index.moduleOrder;
    for (let k = order.length - 1; k >= 0; k--) {
      const id = order[k] as string;
      let total = sums.get(id) ?? 0;
      for (const c of this.index.moduleChildren.get(id) ?? []) total += sums.get(c) ?? 0;
      sums.set(id, total);
    }
    return sums;
  }

  /**
   * A module call's own figure: its direct nodes only, not its children's (a profiler's
   * "self"), so a container does not outrank the layers inside it.
   */
  self(key: MeasureKey, module: ModuleCall): number | undefined {
    if (key === "params") return module.num_params_own;
    let total: number | undefined;
    for (const id of this.index.moduleNodes.get(module.id) ?? []) {
      const n = this.index.nodes.get(id);
      const v = n === undefined ? undefined : this.node(key, n);
      if (v !== undefined) total = (total ?? 0) + v;
    }
    return total;
  }

  /**
   * The top `limit` module calls (not the model itself; by total, or by own figure with
   * `self`) and ops by the measure, largest first.
   */
  hotSpots(key: MeasureKey, limit = 50, self = false): { modules: HotSpot[]; ops: HotSpot[] } {
    const modules: HotSpot[] = [];
    for (const id of this.index.moduleOrder) {
      const m = this.index.modules.get(id);
      if (m === undefined || (id === this.index.root && !self) || this.index.groups.has(id)) continue;
      const value = self ? this.self(key, m) : this.module(key, m);
      if (value === undefined || value <= 0) continue;
      const path = m.path === "" ? "(model)" : m.path;
      const title = m.call_index > 0 ? `${path} (call #${m.call_index + 1})` : path;
      modules.push({ id, kind: "module", title, detail: m.class_name, order: this.index.moduleFirstNode.get(id) ?? 0, value, share: this.share(key, value) });
    }
    const ops: HotSpot[] = [];
    this.index.doc.nodes.forEach((n, i) => {
      if (key !== "params" && n.kind !== "op" && n.kind !== "error") return;
      const value = this.node(key, n);
      if (value === undefined || value <= 0) return;
      const m = this.index.modules.get(n.module);
      const where = m === undefined || m.path === "" ? "(model)" : m.path;
      ops.push({ id: n.id, kind: "op", title: n.label, detail: where, order: i, value, share: this.share(key, value) });
    });
    return { modules: top(modules, limit), ops: top(ops, limit) };
  }
}

/** One entry of the hot-spot list. */
export interface HotSpot {
  readonly id: string;
  readonly kind: "module" | "op";
  readonly title: string;
  /** The module's class, or the module an op ran in. */
  readonly detail: string;
  /** Execution order, for sorting by position in the forward pass. */
  readonly order: number;
  readonly value: number;
  readonly share: number | undefined;
}

function top(spots: HotSpot[], limit: number): HotSpot[] {
  return spots.sort((a, b) => b.value - a.value || a.order - b.order).slice(0, limit);
}

function numel(t: Tensor | undefined): number | undefined {
  return t === undefined ? undefined : t.shape.reduce((a, b) => a * b, 1);
}

const insights = new WeakMap<GraphIndex, Insight>();

/** The (cached) insight of an index. */
export function insightOf(index: GraphIndex): Insight {
  let found = insights.get(index);
  if (found === undefined) {
    found = new Insight(index);
    insights.set(index, found);
  }
  return found;
}
