/**
 * The insight part of the details panel: a node's or module call's cost, bytes and time with
 * its share of the whole model, and the statistics of an op's outputs. textContent only.
 */
import type { GraphIndex, Node } from "../model/document";
import { firstNonfinite, formatMeasure, formatShare, insightOf, tensorStats, type Insight, type MeasureKey, type TensorStats } from "../model/insight";

type Row = readonly [string, string];

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className !== undefined) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

function table(parent: HTMLElement, rows: readonly Row[]): void {
  const t = el("table", "vista-details-table");
  for (const [k, v] of rows) {
    const tr = el("tr");
    tr.append(el("th", undefined, k), el("td", undefined, v));
    t.appendChild(tr);
  }
  parent.appendChild(t);
}

function section(panel: HTMLElement, title: string, id: string): HTMLElement {
  const s = el("section", "vista-details-section vista-details-insight");
  s.dataset["insightOf"] = id;
  s.appendChild(el("h4", undefined, title));
  return s;
}

function figure(insight: Insight, key: MeasureKey, value: number | undefined): string | null {
  if (value === undefined) return null;
  const share = insight.share(key, value);
  return share === undefined ? formatMeasure(key, value) : `${formatMeasure(key, value)} · ${formatShare(share)} of the model`;
}

const LABELS: readonly [MeasureKey, string][] = [
  ["flops", "FLOPs"],
  ["bytes", "activation"],
  ["time", "time"],
  ["nonfinite", "non-finite"],
];

/** "min −1.2 · max 3.4 · mean 0.1 · std 0.9", and the counts that are not zero. */
export function formatStats(s: TensorStats): string {
  const num = (v: number | null): string => (v === null ? "—" : Math.abs(v) >= 1e4 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(2) : String(Number(v.toPrecision(4))));
  const parts = [`min ${num(s.min)}`, `max ${num(s.max)}`, `mean ${num(s.mean)}`, `std ${num(s.std)}`];
  const counts: [string, number][] = [["NaN", s.nan], ["+Inf", s.posinf], ["−Inf", s.neginf], ["zeros", s.zeros]];
  for (const [name, n] of counts) if (n > 0) parts.push(`${n.toLocaleString("en-US")} ${name}`);
  return parts.join(" · ");
}

/** Appends the cost (and, for an op, its outputs' statistics) of `id` to the details panel. */
export function appendInsight(panel: HTMLElement, index: GraphIndex, id: string, members: readonly string[]): void {
  const insight = insightOf(index);
  const node = index.nodes.get(id);
  const rows: Row[] = [];
  if (node !== undefined) {
    for (const [key, label] of LABELS) {
      if (key === "nonfinite") continue;
      const text = figure(insight, key, insight.node(key, node));
      if (text !== null) rows.push([label, text]);
    }
    if ((node.kind === "parameter" || node.kind === "buffer") && typeof node.bytes === "number") rows.push(["bytes", formatMeasure("bytes", node.bytes)]);
  } else {
    if (!index.modules.has(id) || index.groups.has(id)) return;
    for (const [key, label] of LABELS) {
      if (key === "nonfinite" && insight.missing("nonfinite") !== null) continue;
      const text = figure(insight, key, insight.modules(key, members));
      if (text !== null) rows.push([label, text]);
    }
    let paramBytes: number | undefined;
    for (const m of members) {
      const b = index.modules.get(m)?.param_bytes;
      if (typeof b === "number") paramBytes = (paramBytes ?? 0) + b;
    }
    const params = insight.modules("params", members);
    const share = insight.share("params", params);
    if (paramBytes !== undefined) rows.push(["parameter bytes", share === undefined ? formatMeasure("bytes", paramBytes) : `${formatMeasure("bytes", paramBytes)} · ${formatShare(share)} of the parameters`]);
    else if (share !== undefined) rows.push(["parameters", `${formatShare(share)} of the model's`]);
  }
  if (rows.length > 0) {
    const s = section(panel, members.length > 1 ? `Cost of the ${members.length} calls` : "Cost", id);
    table(s, rows);
    panel.appendChild(s);
  }
  if (node !== undefined) appendStats(panel, node, firstNonfinite(index) === node.id);
}

function appendStats(panel: HTMLElement, node: Node, first: boolean): void {
  const rows: Row[] = [];
  (node.outputs ?? []).forEach((t, i) => {
    const s = tensorStats(t);
    if (s !== undefined) rows.push([`#${i}`, formatStats(s)]);
  });
  if (rows.length === 0) return;
  const s = section(panel, "Output statistics", node.id);
  if (first) s.appendChild(el("div", "vista-details-nonfinite", "The first op to make a non-finite value from finite inputs."));
  table(s, rows);
  panel.appendChild(s);
}
