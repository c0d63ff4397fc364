/**
 * The diff's part of the details panel: the selected element's status, both values of each
 * changed field ("1×12×768 → 1×12×1024"), its changed edges, and how many changes lie inside a
 * module call. textContent only.
 */
import { edgeEnds, edgeKey, formatValue, type Change, type DiffMarks, type Side } from "../model/diff";
import type { VisibleEdge } from "../model/visible";
import { STATUS_SIGN } from "./diff-marks";

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className !== undefined) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** What a status means, said of the graph the panel shows. */
function statusText(change: Change, side: Side | null): string {
  switch (change.status) {
    case "added":
      return side === "b" ? "only in b (after), not in a" : "only in b (after)";
    case "removed":
      return side === "a" ? "only in a (before), not in b" : "only in a (before)";
    case "changed":
      return `in a and b; ${change.fields?.length ?? 0} field${change.fields?.length === 1 ? "" : "s"} differ (a → b)`;
  }
}

/** Appends the diff section for `id` to a details panel showing a graph of the diff. */
export function showDiffDetails(panel: HTMLElement, marks: DiffMarks, id: string, side: Side | null): void {
  const own = marks.byId.get(id);
  const edges = [...marks.byEdge].filter(([key]) => {
    const ends = edgeEnds(key);
    return ends !== null && (ends.source === id || ends.target === id);
  });
  const inside = marks.inside.get(id)?.size ?? 0;
  if (own === undefined && edges.length === 0 && inside === 0) return;
  const s = el("section", "vista-details-section vista-diff-details");
  s.appendChild(el("h4", undefined, "Diff"));
  if (own !== undefined) {
    const head = el("div", "vista-diff-status");
    head.dataset["status"] = own.status;
    head.appendChild(el("span", `vista-badge vista-diff-badge-${own.status}`, `${STATUS_SIGN[own.status]} ${own.status}`));
    head.appendChild(el("span", undefined, ` ${statusText(own, side)}`));
    s.appendChild(head);
    const fields = own.fields ?? [];
    if (fields.length > 0) {
      const t = el("table", "vista-details-table vista-diff-fields");
      for (const f of fields) {
        const tr = el("tr");
        tr.dataset["field"] = f.field;
        tr.appendChild(el("th", undefined, f.field));
        tr.appendChild(el("td", undefined, `${formatValue(f.a)} → ${formatValue(f.b)}`));
        t.appendChild(tr);
      }
      s.appendChild(t);
    }
  }
  if (edges.length > 0) {
    const t = el("table", "vista-details-table vista-diff-edges");
    for (const [key, c] of edges) {
      const ends = edgeEnds(key);
      const tr = el("tr");
      const other = ends?.source === id ? `→ ${label(marks, ends.target)}` : `← ${label(marks, ends?.source ?? "")}`;
      tr.appendChild(el("th", undefined, `edge ${other}`));
      const values = (c.fields ?? []).map((f) => `${f.field} ${formatValue(f.a)} → ${formatValue(f.b)}`);
      tr.appendChild(el("td", undefined, [`${STATUS_SIGN[c.status]} ${c.status}`, ...values].join("; ")));
      t.appendChild(tr);
    }
    s.appendChild(t);
  }
  if (inside > 0) s.appendChild(el("div", "vista-diff-inside", `${inside} change${inside === 1 ? "" : "s"} inside`));
  // Right under the element's title: what changed is what a diff reader looks for first.
  const head = panel.querySelector(":scope > header");
  if (head !== null) head.after(s);
  else panel.prepend(s);
}

function label(marks: DiffMarks, id: string): string {
  return marks.index.nodes.get(id)?.label ?? id;
}

/** Appends the diff section for a drawn edge: the change of each document edge it carries. */
export function showEdgeDiff(panel: HTMLElement, marks: DiffMarks, edge: VisibleEdge): void {
  const rows: [string, Change][] = [];
  for (const i of edge.edges) {
    const e = marks.index.edges[i];
    const c = e === undefined ? undefined : marks.byEdge.get(edgeKey(e));
    if (e !== undefined && c !== undefined) rows.push([`${label(marks, e.source)} → ${label(marks, e.target)}`, c]);
  }
  if (rows.length === 0) return;
  const s = el("section", "vista-details-section vista-diff-details");
  s.appendChild(el("h4", undefined, "Diff"));
  const t = el("table", "vista-details-table vista-diff-edges");
  for (const [name, c] of rows) {
    const tr = el("tr");
    tr.dataset["status"] = c.status;
    tr.appendChild(el("th", undefined, name));
    const values = (c.fields ?? []).map((f) => `${f.field} ${formatValue(f.a)} → ${formatValue(f.b)}`);
    tr.appendChild(el("td", undefined, [`${STATUS_SIGN[c.status]} ${c.status}`, ...values].join("; ")));
    t.appendChild(tr);
  }
  s.appendChild(t);
  const head = panel.querySelector(":scope > header");
  if (head !== null) head.after(s);
  else panel.prepend(s);
}
