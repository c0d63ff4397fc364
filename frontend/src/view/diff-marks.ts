/**
 * The marks of a diff on a drawn graph: added, removed and changed items outlined in their
 * colour with a badge ("+", "−", "Δ"; removed also dashed and faded), closed boxes and folded
 * runs that hold changes with a "N changes" pill, and edges coloured (removed: dashed). Drawn
 * after each draw as SVG presentation attributes, so exports show them; never text from the model.
 */
import { select } from "d3-selection";
import { edgeKey, edgeMark, itemMark, type ChangeStatus, type DiffMarks } from "../model/diff";
import type { Palette } from "./theme";
import type { DrawnView } from "./viewer";
import { FONT_FAMILY } from "./measure";

export interface DiffColors {
  readonly added: string;
  readonly removed: string;
  readonly changed: string;
  /** Text on a badge. */
  readonly badgeText: string;
}

/** By the palette's background: the light and the dark theme. */
export function diffColors(palette: Palette): DiffColors {
  return palette.background === "#ffffff"
    ? { added: "#1a7f37", removed: "#cf222e", changed: "#8250df", badgeText: "#ffffff" }
    : { added: "#3fb950", removed: "#ff7b72", changed: "#bc8cff", badgeText: "#0d1117" };
}

/** The badge's symbol and the word the legend and details use. */
export const STATUS_SIGN: Readonly<Record<ChangeStatus, string>> = { added: "+", removed: "−", changed: "Δ" };

const MARK = "vista-diff-mark";

/** Marks what `view` drew with the changes of `marks`. */
export function drawDiffMarks(view: DrawnView, marks: DiffMarks): void {
  const colors = diffColors(view.palette);
  const root = view.viewport;
  for (const el of root.querySelectorAll<SVGGElement>("g.vista-node[data-id], g.vista-module[data-id]")) {
    const id = el.getAttribute("data-id") as string;
    const rect = view.layout.rects[id];
    if (rect === undefined) continue;
    let members: readonly string[] = [id];
    let open = false;
    const item = view.visible.items.get(id);
    if (el.classList.contains("vista-module") && el.getAttribute("data-state") === "expanded") open = true;
    else if (item?.type === "box") members = item.members;
    const mark = itemMark(marks, members);
    const inside = open ? 0 : mark.inside;
    const key = `${mark.status ?? ""}|${inside}|${rect.width}|${rect.height}|${colors.added}`;
    if (el.getAttribute("data-diff-key") === key) continue;
    el.setAttribute("data-diff-key", key);
    for (const old of el.querySelectorAll(`:scope > g.${MARK}`)) old.remove();
    if (mark.status === null) el.removeAttribute("data-diff");
    else el.setAttribute("data-diff", mark.status);
    if (inside > 0) el.setAttribute("data-diff-inside", String(inside));
    else el.removeAttribute("data-diff-inside");
    for (const child of el.children) {
      if (child.tagName !== "title") child.setAttribute("opacity", mark.status === "removed" ? "0.55" : "1");
    }
    if (mark.status === null && inside === 0) continue;
    const g = select(el).append("g").attr("class", MARK).attr("pointer-events", "none");
    if (mark.status !== null) {
      const color = colors[mark.status];
      g.append("rect")
        .attr("class", "vista-diff-outline")
        .attr("x", -4)
        .attr("y", -4)
        .attr("width", rect.width + 8)
        .attr("height", rect.height + 8)
        .attr("rx", item?.type === "node" ? 7 : 11)
        .attr("fill", "none")
        .attr("stroke", color)
        .attr("stroke-width", 2.5)
        .attr("stroke-dasharray", mark.status === "removed" ? "6 3" : null);
    }
    const node = item?.type === "node";
    let x = node ? rect.width - 6 : 10;
    if (mark.status !== null) x = pill(g, x, STATUS_SIGN[mark.status], node ? "" : ` ${mark.status}`, colors[mark.status], colors, node) + 4;
    if (inside > 0) pill(g, x, "", `${inside} change${inside === 1 ? "" : "s"}`, colors.changed, colors, false, true);
  }
  drawEdgeMarks(view, marks, colors);
}

/** A badge at `x` on the item's top border; returns its right end. */
function pill(
  g: ReturnType<typeof select<SVGGElement, unknown>>,
  x: number,
  sign: string,
  word: string,
  color: string,
  colors: DiffColors,
  round: boolean,
  hollow = false,
): number {
  const text = `${sign}${word}`;
  const height = 15;
  // Bold 10px text is at most ~6.6px a character here (digits, lower case): a generous estimate, not a measure, so marking never forces a layout.
  const width = round ? height : 12 + text.length * 6.6;
  const b = g.append("g").attr("class", "vista-diff-badge").attr("transform", `translate(${x.toFixed(1)},${(-height / 2 - 2).toFixed(1)})`);
  b.append("rect")
    .attr("width", width)
    .attr("height", height)
    .attr("rx", height / 2)
    .attr("fill", hollow ? colors.badgeText : color)
    .attr("stroke", color)
    .attr("stroke-width", 1.2);
  b.append("text")
    .attr("x", width / 2)
    .attr("y", height / 2)
    .attr("dy", "0.35em")
    .attr("text-anchor", "middle")
    .attr("font-family", FONT_FAMILY)
    .attr("font-size", round ? 12 : 10)
    .attr("font-weight", 700)
    .attr("fill", hollow ? color : colors.badgeText)
    .text(text);
  return x + width;
}

function drawEdgeMarks(view: DrawnView, marks: DiffMarks, colors: DiffColors): void {
  const byId = new Map(view.visible.edges.map((e) => [e.id, e]));
  const edges = view.index.edges;
  for (const el of view.viewport.querySelectorAll<SVGGElement>("g.vista-edge")) {
    const e = byId.get(el.getAttribute("data-edge") ?? `${el.getAttribute("data-source") ?? ""}>${el.getAttribute("data-target") ?? ""}`);
    if (e === undefined) continue;
    const keys = e.edges.map((i) => edgeKey(edges[i] as (typeof edges)[number]));
    const status = edgeMark(marks, keys);
    const key = `${status ?? ""}|${colors.added}`;
    if (el.getAttribute("data-diff-key") === key) continue;
    el.setAttribute("data-diff-key", key);
    const path = el.querySelector("path.vista-edge-line") ?? el.querySelector("path");
    if (status === null) {
      el.removeAttribute("data-diff");
      path?.setAttribute("stroke", view.palette.edge);
      path?.setAttribute("stroke-width", "1.2");
      path?.removeAttribute("stroke-dasharray");
    } else {
      el.setAttribute("data-diff", status);
      path?.setAttribute("stroke", colors[status]);
      path?.setAttribute("stroke-width", "2");
      if (status === "removed") path?.setAttribute("stroke-dasharray", "6 3");
      else path?.removeAttribute("stroke-dasharray");
    }
  }
}

/** The diff's entries after the legend of node kinds: a swatch and the badge's sign per status. */
export function fillDiffLegend(legend: HTMLElement, palette: Palette): void {
  const colors = diffColors(palette);
  for (const status of ["added", "removed", "changed"] as const) {
    const s = document.createElement("span");
    s.className = `vista-legend-diff vista-legend-${status}`;
    s.textContent = `${STATUS_SIGN[status]} ${status}`;
    s.style.setProperty("--vv-sw-fill", "transparent");
    s.style.setProperty("--vv-sw-stroke", colors[status]);
    if (status === "removed") s.style.setProperty("--vv-sw-style", "dashed");
    legend.appendChild(s);
  }
}
