/**
 * Drawing transitions over the graph: each cast, device copy or layout copy op framed in its
 * kind's colour with a tag ("fp32→bf16"), closed boxes tagged with what they hide, and the
 * legend's counts. Everything added carries `vista-insight-extra`, so a repaint removes it.
 */
import type { GraphIndex } from "../model/document";
import { describeCounts, TRANSITION_NOUNS, type Transition, type TransitionKind } from "../model/transitions";
import type { VisibleGraph } from "../model/visible";
import { paintAttr } from "./heat";
import { FONT_FAMILY } from "./measure";
import type { ThemeName } from "./theme";

export const TRANSITION_COLORS: Readonly<Record<ThemeName, Readonly<Record<TransitionKind, string>>>> = {
  light: { cast: "#00897b", device: "#1e63d6", copy: "#d35400" },
  dark: { cast: "#4dd0c0", device: "#7fb0ff", copy: "#ff9e57" },
};

const SVG_NS = "http://www.w3.org/2000/svg";

function tag(g: SVGGElement, text: string, color: string, halo: string): void {
  const t = document.createElementNS(SVG_NS, "text");
  t.setAttribute("class", "vista-insight-extra vista-transition-tag");
  t.setAttribute("x", "0");
  t.setAttribute("y", "-5");
  t.setAttribute("font-family", FONT_FAMILY);
  t.setAttribute("font-size", "9.5");
  t.setAttribute("font-weight", "700");
  t.setAttribute("fill", color);
  t.setAttribute("stroke", halo);
  t.setAttribute("stroke-width", "3");
  t.setAttribute("stroke-linejoin", "round");
  t.setAttribute("paint-order", "stroke");
  t.textContent = text;
  g.appendChild(t);
}

export interface TransitionPaint {
  readonly viewport: SVGGElement;
  readonly index: GraphIndex;
  readonly visible: VisibleGraph;
  readonly found: ReadonlyMap<string, Transition>;
  readonly byModule: ReadonlyMap<string, Readonly<Record<TransitionKind, number>>>;
  readonly theme: ThemeName;
  readonly background: string;
}

/** Frames and tags the drawn transitions (ops, and closed boxes by what they hide). */
export function paintTransitions(p: TransitionPaint): void {
  const colors = TRANSITION_COLORS[p.theme];
  for (const g of p.viewport.querySelectorAll<SVGGElement>('g.vista-node[data-kind="op"], g.vista-module[data-state="collapsed"]')) {
    const id = g.dataset["id"];
    if (id === undefined) continue;
    const t = p.found.get(id);
    let kind: TransitionKind | null = null;
    let text = "";
    if (t !== undefined) {
      kind = t.kind;
      text = t.text;
    } else if (g.classList.contains("vista-module")) {
      const item = p.visible.items.get(id);
      const counts: Record<TransitionKind, number> = { cast: 0, device: 0, copy: 0 };
      for (const m of item?.type === "box" ? item.members : []) {
        const c = p.byModule.get(m);
        if (c !== undefined) for (const k of Object.keys(counts) as TransitionKind[]) counts[k] += c[k];
      }
      const total = counts.cast + counts.device + counts.copy;
      if (total === 0) continue;
      kind = counts.cast > 0 ? "cast" : counts.device > 0 ? "device" : "copy";
      text = describeCounts(counts);
    }
    if (kind === null) continue;
    const frame = g.querySelector(":scope > path, :scope > rect.vista-module-frame");
    if (frame !== null) {
      paintAttr(frame, "stroke", colors[kind]);
      paintAttr(frame, "stroke-width", "2.6");
    }
    g.dataset["vvHeat"] = "true";
    paintAttr(g, "data-transition", kind);
    tag(g, text, colors[kind], p.background);
  }
}

/** The legend of the transitions: each kind's colour and how many the document has. */
export function fillTransitionsLegend(legend: HTMLElement, found: ReadonlyMap<string, Transition> | null, theme: ThemeName): void {
  legend.replaceChildren();
  legend.hidden = found === null;
  if (found === null) return;
  const counts: Record<TransitionKind, number> = { cast: 0, device: 0, copy: 0 };
  for (const t of found.values()) counts[t.kind]++;
  const title = document.createElement("div");
  title.className = "vista-heat-title";
  title.textContent = found.size === 0 ? "Transitions: none in this graph" : "Transitions";
  legend.appendChild(title);
  for (const kind of Object.keys(counts) as TransitionKind[]) {
    const row = document.createElement("div");
    row.className = "vista-transition-row";
    row.dataset["kind"] = kind;
    const sw = document.createElement("span");
    sw.className = "vista-heat-swatch";
    sw.style.borderColor = TRANSITION_COLORS[theme][kind];
    const [one, many] = TRANSITION_NOUNS[kind];
    row.append(sw, document.createTextNode(` ${counts[kind]} ${counts[kind] === 1 ? one : many}`));
    legend.appendChild(row);
  }
}
