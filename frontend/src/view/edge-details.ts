/**
 * The details panel of a drawn edge: each tensor it carries, with its shape, dtype, device,
 * size, the node that produced it and every node that reads it. textContent only.
 */
import type { GraphIndex } from "../model/document";
import { formatShape } from "../model/format";
import { edgeTensors, formatBytes, tensorBytes } from "../model/tensors";
import type { VisibleEdge } from "../model/visible";
import { el, section, table, type Row } from "./details";

/** Where a node runs: `label in encoder.layer.0 (BertLayer)`. */
function placed(index: GraphIndex, id: string): string {
  const node = index.nodes.get(id);
  if (node === undefined) return id;
  const m = index.modules.get(node.module);
  const where = m === undefined ? "" : ` in ${m.path === "" ? "(model)" : m.path}`;
  return `${node.label}${where}`;
}

export function showEdge(panel: HTMLElement, index: GraphIndex, edge: VisibleEdge): void {
  panel.replaceChildren();
  const flows = edgeTensors(index, edge);
  const head = el("header");
  head.appendChild(el("span", "vista-badge vista-badge-tensor", flows.length > 1 ? `tensors ×${flows.length}` : "tensor"));
  head.appendChild(el("h3", undefined, flows.map((f) => formatShape(f.tensor.shape)).join(", ")));
  panel.appendChild(head);
  for (const [i, f] of flows.entries()) {
    const s = flows.length > 1 ? section(panel, `Tensor ${i + 1}`) : panel;
    const bytes = tensorBytes(f.tensor);
    const rows: Row[] = [
      ["shape", formatShape(f.tensor.shape)],
      ["dtype", f.tensor.dtype],
      ["device", f.tensor.device],
      ["size", bytes === null ? "unknown (dtype without a fixed size)" : bytes < 1024 ? `${bytes} bytes` : `${formatBytes(bytes)} (${bytes.toLocaleString("en-US")} bytes)`],
      ["producer", `${placed(index, f.source)}${f.sourceOutput > 0 ? `, output #${f.sourceOutput}` : ""}`],
    ];
    if (f.tensor.requires_grad === true) rows.splice(3, 0, ["grad", "requires_grad"]);
    table(s, rows);
    const consumers = f.consumers.map((e): Row => [`input #${e.target_input}`, placed(index, e.target)]);
    const t = section(s === panel ? panel : s, `Consumers (${f.consumers.length})`);
    table(t, consumers);
  }
}
