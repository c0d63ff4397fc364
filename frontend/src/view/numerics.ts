/**
 * Numerics: the banner naming the first op that produced a non-finite value from finite
 * inputs (the document's `first_nonfinite`), with its source line and its inputs' ranges,
 * and the mark that sets that op apart on the graph, like a failure but in its own colour.
 */
import type { GraphIndex } from "../model/document";
import { formatShape } from "../model/format";
import { tensorStats } from "../model/insight";
import { paintAttr } from "./heat";
import { formatStats } from "./insight-details";
import type { ThemeName } from "./theme";

/** The mark's colour: violet, apart from the failure's red and the selection's amber. */
export const NONFINITE_COLOR: Readonly<Record<ThemeName, string>> = { light: "#8e24aa", dark: "#d08cff" };

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className !== undefined) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** What the op made: "3 NaN, 1 +Inf" over its outputs. */
function produced(index: GraphIndex, id: string): string {
  let nan = 0;
  let posinf = 0;
  let neginf = 0;
  for (const t of index.nodes.get(id)?.outputs ?? []) {
    const s = tensorStats(t);
    if (s === undefined) continue;
    nan += s.nan;
    posinf += s.posinf;
    neginf += s.neginf;
  }
  const parts: string[] = [];
  if (nan > 0) parts.push(`${nan.toLocaleString("en-US")} NaN`);
  if (posinf > 0) parts.push(`${posinf.toLocaleString("en-US")} +Inf`);
  if (neginf > 0) parts.push(`${neginf.toLocaleString("en-US")} −Inf`);
  return parts.length === 0 ? "a non-finite value" : parts.join(", ");
}

/** Each input of the op: where it came from, its shape and the range of its values (from the producer's stats). */
export function inputRanges(index: GraphIndex, id: string): [string, string][] {
  return index.edges
    .filter((e) => e.target === id)
    .sort((a, b) => a.target_input - b.target_input)
    .map((e): [string, string] => {
      const source = index.nodes.get(e.source);
      const stats = tensorStats(source?.outputs?.[e.source_output]);
      const what = `#${e.target_input} ← ${source?.label ?? e.source}`;
      const range = stats === undefined ? "no statistics (not an op output)" : formatStats(stats);
      return [what, `${formatShape(e.tensor.shape)} ${e.tensor.dtype}: ${range}`];
    });
}

/** The banner above the graph; `onShow` frames and selects the op. */
export function buildNonfiniteBanner(index: GraphIndex, id: string, onShow: () => void): HTMLDivElement {
  const node = index.nodes.get(id);
  const banner = el("div", "vista-nonfinite");
  banner.setAttribute("role", "status");
  banner.dataset["node"] = id;
  const head = el("div", "vista-nonfinite-head");
  const title = el("div", "vista-nonfinite-title");
  title.append(
    el("strong", undefined, "First non-finite value: "),
    el("code", undefined, node?.name ?? id),
    document.createTextNode(` made ${produced(index, id)} from finite inputs`),
  );
  const show = el("button", undefined, "Show op");
  show.type = "button";
  show.dataset["action"] = "show-nonfinite";
  show.title = "Centre the view on the op that first made a non-finite value";
  show.addEventListener("click", onShow);
  head.append(title, show);
  banner.appendChild(head);
  const src = node?.source;
  if (src !== undefined) {
    const line = el("div", "vista-nonfinite-source", `${src.file}:${src.line} in ${src.function}`);
    if (src.code !== undefined && src.code !== "") line.appendChild(el("code", undefined, `  ${src.code.trim()}`));
    banner.appendChild(line);
  }
  const inputs = inputRanges(index, id);
  if (inputs.length > 0) {
    const list = el("ul", "vista-nonfinite-inputs");
    for (const [what, range] of inputs) {
      const li = el("li");
      li.append(el("span", "vista-nonfinite-input", what), document.createTextNode(` ${range}`));
      list.appendChild(li);
    }
    banner.appendChild(list);
  }
  return banner;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** Marks the drawn item showing the op (itself, or the closed box hiding it) with a dashed violet frame. */
export function markNonfinite(viewport: SVGGElement, owner: string, theme: ThemeName): void {
  const g = viewport.querySelector<SVGGElement>(`g.vista-node[data-id="${CSS.escape(owner)}"], g.vista-module[data-state="collapsed"][data-id="${CSS.escape(owner)}"]`);
  if (g === null) return;
  const frame = g.querySelector(":scope > path, :scope > rect.vista-module-frame");
  if (!(frame instanceof SVGGraphicsElement)) return;
  const box = frame.getBBox();
  const r = document.createElementNS(SVG_NS, "rect");
  r.setAttribute("class", "vista-insight-extra vista-nonfinite-mark");
  r.setAttribute("x", String(box.x - 5));
  r.setAttribute("y", String(box.y - 5));
  r.setAttribute("width", String(box.width + 10));
  r.setAttribute("height", String(box.height + 10));
  r.setAttribute("rx", "8");
  r.setAttribute("fill", "none");
  r.setAttribute("stroke", NONFINITE_COLOR[theme]);
  r.setAttribute("stroke-width", "2");
  r.setAttribute("stroke-dasharray", "5 3");
  r.setAttribute("pointer-events", "none");
  g.insertBefore(r, g.firstChild);
  paintAttr(frame, "stroke", NONFINITE_COLOR[theme]);
  paintAttr(frame, "stroke-width", "2.5");
  paintAttr(g, "data-nonfinite", "true");
  g.dataset["vvHeat"] = "true";
}
