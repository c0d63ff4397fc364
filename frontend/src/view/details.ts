/**
 * The details panel: what the document says about one node or module call. Built with
 * textContent only: class names, reprs, messages and source code are data, never markup.
 */
import { leafGroupSize, type GraphIndex, type LeafGroup, type ModuleCall, type Node, type SharedTensor, type Source } from "../model/document";
import { formatCount, formatShape, formatTensor } from "../model/format";

export type Row = readonly [string, string];

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className !== undefined) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

/**
 * Sets `e`'s text with a break opportunity (<wbr>) after every "." and "/", so long class names,
 * module paths and file paths wrap between their parts instead of mid-word.
 */
export function setBreakable(e: HTMLElement, text: string): void {
  e.replaceChildren();
  for (const part of text.split(/(?<=[./\\])/)) {
    if (e.childNodes.length > 0) e.appendChild(document.createElement("wbr"));
    e.appendChild(document.createTextNode(part));
  }
}

function heading(text: string): HTMLHeadingElement {
  const h = el("h3");
  setBreakable(h, text);
  return h;
}

export function section(parent: HTMLElement, title: string): HTMLElement {
  const s = el("section", "vista-details-section");
  s.appendChild(el("h4", undefined, title));
  parent.appendChild(s);
  return s;
}

export function table(parent: HTMLElement, rows: readonly Row[]): void {
  if (rows.length === 0) return;
  const t = el("table", "vista-details-table");
  for (const [k, v] of rows) {
    const tr = el("tr");
    tr.appendChild(el("th", undefined, k));
    const td = el("td");
    setBreakable(td, v);
    tr.appendChild(td);
    t.appendChild(tr);
  }
  parent.appendChild(t);
}

function sourceBlock(parent: HTMLElement, src: Source | undefined): void {
  if (src === undefined) return;
  const s = section(parent, "Source");
  const where = el("div", "vista-source-location");
  setBreakable(where, `${src.file}:${src.line} in ${src.function}`);
  s.appendChild(where);
  if (src.code !== undefined && src.code !== "") s.appendChild(el("pre", "vista-source-code", src.code));
}

/** Fills `panel` with the details of a node. */
export function showNode(panel: HTMLElement, index: GraphIndex, node: Node): void {
  panel.replaceChildren();
  const head = el("header");
  head.appendChild(el("span", `vista-badge vista-badge-${node.kind}`, node.kind));
  head.appendChild(heading(node.label));
  panel.appendChild(head);
  const module = index.modules.get(node.module);
  const rows: Row[] = [["name", node.name]];
  const group = index.groups.get(node.module);
  if (group !== undefined) rows.push(["group", `${group.name} (${leafGroupSize(group)})`]);
  else if (module !== undefined) rows.push(["module", `${module.path === "" ? "(model)" : module.path} (${module.class_name})`]);
  if (node.value !== undefined) rows.push(["value", node.value]);
  const shared = index.shared.get(node.id);
  if (shared !== undefined && shared.nodes.length > 1) rows.push(["shared", `read by ${shared.nodes.length} module calls`]);
  table(panel, rows);
  if (shared !== undefined) sharedBlock(panel, index, node, shared);
  if (node.error !== undefined || index.failedNodes.has(node.id)) {
    const s = section(panel, "Error");
    s.classList.add("vista-details-error");
    const err = node.error ?? index.doc.error;
    if (err !== undefined) s.appendChild(el("div", undefined, `${err.type}: ${err.message}`));
  }
  const inputs = index.edges
    .filter((e) => e.target === node.id)
    .sort((a, b) => a.target_input - b.target_input)
    .map((e): Row => [`#${e.target_input} ← ${index.nodes.get(e.source)?.label ?? e.source}`, formatTensor(e.tensor)]);
  if (inputs.length > 0) table(section(panel, "Inputs"), inputs);
  const outputs = (node.outputs ?? []).map((t, i): Row => [`#${i}`, formatTensor(t)]);
  if (outputs.length > 0) table(section(panel, "Outputs"), outputs);
  const args = (node.arguments ?? []).map((a, i): Row => [a.name ?? `arg ${i}`, a.value]);
  if (args.length > 0) table(section(panel, "Arguments"), args);
  sourceBlock(panel, node.source);
}

/** Where else a shared or tied parameter is read, and every name the model has for it. */
function sharedBlock(panel: HTMLElement, index: GraphIndex, node: Node, shared: SharedTensor): void {
  const others = shared.nodes
    .filter((id) => id !== node.id)
    .map((id): Row => {
      const other = index.nodes.get(id);
      const m = other === undefined ? undefined : index.modules.get(other.module);
      const path = m === undefined ? id : m.path === "" ? "(model)" : m.path;
      const call = m !== undefined && m.call_index > 0 ? ` (call #${m.call_index + 1})` : "";
      return [`${path}${call}`, other?.name ?? id];
    });
  const calls = others.length;
  const shown = new Set([node.name, ...others.map((row) => row[1])]);
  const names = shared.names.filter((n) => !shown.has(n));
  if (names.length > 0) others.push(["also named", names.join(", ")]);
  if (others.length > 0) table(section(panel, calls > 0 ? "Also read in" : "Tied"), others);
}

/** The details of a group of the model's inputs or outputs: each member and its tensor. */
function showGroup(panel: HTMLElement, index: GraphIndex, group: LeafGroup): void {
  const head = el("header");
  head.appendChild(el("span", `vista-badge vista-badge-${group.kind}`, `${group.kind}s ×${group.nodes.length}`));
  head.appendChild(heading(group.name));
  panel.appendChild(head);
  // An output node's tensor is on the edge into it; an input node's is its own output.
  const members = new Set(group.nodes);
  const tensorOf = new Map<string, string>();
  for (const e of index.edges) {
    if (members.has(e.target) && !tensorOf.has(e.target)) tensorOf.set(e.target, formatTensor(e.tensor));
  }
  const rows = group.nodes.map((id): Row => {
    const node = index.nodes.get(id);
    const out = node?.outputs?.[0];
    const text = out !== undefined ? formatTensor(out) : tensorOf.get(id) ?? node?.value ?? "";
    return [node?.name ?? id, text];
  });
  table(section(panel, group.kind === "output" ? "Outputs" : "Inputs"), rows);
}

/** Fills `panel` with the details of a module call (or a folded run of `members`). */
export function showModule(panel: HTMLElement, index: GraphIndex, module: ModuleCall, members: readonly string[]): void {
  panel.replaceChildren();
  const group = index.groups.get(module.id);
  if (group !== undefined) {
    showGroup(panel, index, group);
    return;
  }
  const head = el("header");
  head.appendChild(el("span", "vista-badge vista-badge-module", members.length > 1 ? `module ×${members.length}` : "module"));
  head.appendChild(heading(module.class_name));
  panel.appendChild(head);
  const rows: Row[] = [
    ["class", module.class_qualname],
    ["path", module.path === "" ? "(model)" : module.path],
    ["parameters", `${formatCount(module.num_params)} (${module.num_params.toLocaleString("en-US")}), own ${module.num_params_own.toLocaleString("en-US")}`],
  ];
  if (module.call_index > 0) rows.push(["call", `#${module.call_index + 1} of this module`]);
  if (module.extra_repr !== undefined && module.extra_repr !== "") rows.push(["config", module.extra_repr]);
  if (members.length > 1) {
    const paths = members.map((m) => index.modules.get(m)?.path ?? m);
    rows.push(["repeated", `${members.length} identical calls: ${paths[0] ?? ""} … ${paths[paths.length - 1] ?? ""}`]);
    const fold = index.folds.get(index.foldOf.get(module.id) ?? "");
    // The glue after the first call (before the second): alike after every call of the run.
    const second = index.moduleFirstNode.get(members[1] ?? "") ?? Number.POSITIVE_INFINITY;
    const glue: [number, string][] = [];
    for (const id of fold?.glueModules ?? []) glue.push([index.moduleFirstNode.get(id) ?? second, index.modules.get(id)?.class_name ?? id]);
    for (const id of fold?.glue ?? []) glue.push([index.nodeIndex.get(id) ?? second, index.nodes.get(id)?.label ?? id]);
    const each = glue.filter(([at]) => at < second).sort((a, b) => a[0] - b[0]).map(([, label]) => label);
    if (each.length > 0) rows.push(["after each call", each.join(", ")]);
  }
  table(panel, rows);
  const params = (module.parameters ?? []).map(
    (p): Row => [p.name, `${formatShape(p.shape)} · ${p.dtype} · ${p.numel.toLocaleString("en-US")}${p.kind === "buffer" ? " · buffer" : ""}`],
  );
  if (params.length > 0) table(section(panel, "Own parameters"), params);
  // A Hugging Face layer's config: what its empty extra_repr does not say.
  const attributes = (module.attributes ?? []).map((a): Row => [a.name, a.value]);
  if (attributes.length > 0) table(section(panel, "Attributes"), attributes);
  sourceBlock(panel, module.source);
}
