/**
 * Colour by a measure: a perceptual sequential scale per theme, the figures of what is drawn,
 * and painting them over the drawn graph (op nodes and closed boxes filled, closed boxes and
 * open modules' headers labelled with their totals) plus the legend. Painting is a pass
 * over the renderer's elements that remembers their own colours, so "none" restores them.
 */
import type { VisibleGraph } from "../model/visible";
import { formatMeasure, MEASURE_INFO, type Insight, type MeasureKey } from "../model/insight";
import type { LayoutResult } from "../layout/types";
import { FONT_FAMILY } from "./measure";
import type { Measure } from "./measure";
import type { ThemeName } from "./theme";

/**
 * Stops of the scales, evenly spaced: ColorBrewer's YlOrRd on light (pale is cold, so cold
 * nodes stay quiet on white) and matplotlib's magma from its dark purple on dark (bright is
 * hot on a dark page). Both are monotonic in lightness, so order reads without hue.
 */
const STOPS: Readonly<Record<ThemeName, readonly string[]>> = {
  light: ["#ffffcc", "#ffeda0", "#fed976", "#feb24c", "#fd8d3c", "#fc4e2a", "#e31a1c", "#bd0026", "#800026"],
  dark: ["#3b0f70", "#641a80", "#8c2981", "#b73779", "#de4968", "#f7705c", "#fe9f6d", "#fecf92", "#fcfdbf"],
};

/** Items the measure does not apply to: quiet, so the heat stands out. */
const NEUTRAL: Readonly<Record<ThemeName, { fill: string; stroke: string; text: string }>> = {
  light: { fill: "#f4f5f7", stroke: "#c9ced6", text: "#8a929e" },
  dark: { fill: "#1f2228", stroke: "#3a404b", text: "#7d8694" },
};

function rgb(hex: string): [number, number, number] {
  const v = parseInt(hex.slice(1), 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}

function hex(c: readonly number[]): string {
  return `#${c.map((x) => Math.round(x).toString(16).padStart(2, "0")).join("")}`;
}

/** The scale's colour at t in [0, 1]. */
export function heatColor(theme: ThemeName, t: number): string {
  const stops = STOPS[theme];
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const a = rgb(stops[i] as string);
  const b = rgb(stops[i + 1] as string);
  const f = x - i;
  return hex(a.map((v, k) => v + ((b[k] as number) - v) * f));
}

/** Text colour readable on `fill`: by its relative luminance (WCAG). */
export function textOn(fill: string): string {
  const lin = rgb(fill).map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  const l = 0.2126 * (lin[0] as number) + 0.7152 * (lin[1] as number) + 0.0722 * (lin[2] as number);
  return l > 0.22 ? "#1a1a1a" : "#ffffff";
}

/** A log scale over the positive figures of what is drawn: t of a figure in [0, 1]. */
export interface HeatScale {
  readonly min: number;
  readonly max: number;
  t(value: number): number;
}

export function logScale(values: Iterable<number>): HeatScale | null {
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (!(v > 0) || !Number.isFinite(v)) continue;
    min = Math.min(min, v);
    max = Math.max(max, v);
  }
  if (!(min <= max)) return null;
  const lo = Math.log(min);
  const span = Math.log(max) - lo;
  return { min, max, t: (v) => (span <= 0 ? 1 : (Math.log(v) - lo) / span) };
}

/** The figure of each drawn item (nodes, closed boxes, open modules) that has one. */
export function drawnFigures(insight: Insight, key: MeasureKey, visible: VisibleGraph): Map<string, number> {
  const figures = new Map<string, number>();
  for (const item of visible.items.values()) {
    const v = item.type === "node" ? insight.node(key, item.node) : item.group !== undefined ? undefined : insight.modules(key, item.members);
    if (v !== undefined) figures.set(item.id, v);
  }
  for (const c of visible.containers.values()) {
    if (c.group !== undefined) continue;
    const v = insight.module(key, c.module);
    if (v !== undefined) figures.set(c.id, v);
  }
  return figures;
}

export interface PaintInput {
  readonly viewport: SVGGElement;
  readonly visible: VisibleGraph;
  readonly layout: LayoutResult;
  readonly insight: Insight;
  readonly key: MeasureKey | null;
  readonly theme: ThemeName;
  readonly measure: Measure;
}

const SVG_NS = "http://www.w3.org/2000/svg";
const PAINTED = "vvHeat";

/** Sets an attribute, remembering the element's own value the first time (for unpaint). */
export function paintAttr(el: Element, name: string, value: string): void {
  const keep = `data-vv-own-${name}`;
  if (!el.hasAttribute(keep)) el.setAttribute(keep, el.getAttribute(name) ?? "");
  el.setAttribute(name, value);
}

function unpaint(group: Element): void {
  for (const extra of group.querySelectorAll(".vista-insight-extra")) extra.remove();
  for (const el of [group, ...group.querySelectorAll("*")]) {
    for (const attr of [...el.attributes]) {
      if (!attr.name.startsWith("data-vv-own-")) continue;
      const name = attr.name.slice("data-vv-own-".length);
      if (attr.value === "") el.removeAttribute(name);
      else el.setAttribute(name, attr.value);
      el.removeAttribute(attr.name);
    }
  }
  if (group instanceof SVGElement) {
    delete group.dataset[PAINTED];
    delete group.dataset["heat"];
  }
}

/** The width an open module's header controls take: from its toggle's left edge. */
function controlsOf(viewport: SVGGElement, id: string): number {
  const frame = viewport.querySelector(`g.vista-module[data-id="${CSS.escape(id)}"][data-state="expanded"]`);
  if (frame === null) return 30;
  let left = Infinity;
  for (const r of frame.querySelectorAll(":scope > [data-action] > rect")) left = Math.min(left, Number(r.getAttribute("x") ?? Infinity));
  const width = Number(frame.querySelector(":scope > rect.vista-module-frame")?.getAttribute("width") ?? 0);
  return Number.isFinite(left) ? width - left : 30;
}

const GROUPS = "g.vista-node[data-id], g.vista-module[data-id], g.vista-module-title[data-id]";

/** Restores every drawn element that insight painted to the renderer's own look. */
export function unpaintAll(viewport: SVGGElement): void {
  for (const g of viewport.querySelectorAll<SVGGElement>(GROUPS)) if (g.dataset[PAINTED] !== undefined) unpaint(g);
}

/** Paints the (unpainted) drawn graph by `key`; returns the scale used. */
export function paintHeat(input: PaintInput): HeatScale | null {
  const { viewport, visible, layout, insight, key, theme } = input;
  const groups = viewport.querySelectorAll<SVGGElement>(GROUPS);
  if (key === null) return null;
  const figures = drawnFigures(insight, key, visible);
  const itemFigures = [...visible.items.keys()].map((id) => figures.get(id)).filter((v): v is number => v !== undefined);
  const scale = logScale(itemFigures);
  const neutral = NEUTRAL[theme];
  for (const g of groups) {
    const id = g.dataset["id"];
    if (id === undefined) continue;
    const isTitle = g.classList.contains("vista-module-title");
    const open = g.dataset["state"] === "expanded";
    if (isTitle) {
      const v = figures.get(id);
      const r = layout.rects[id];
      if (v !== undefined && v > 0 && r !== undefined && key !== "params") titleFigure(g, formatMeasure(key, v), r.width, controlsOf(viewport, id), input);
      continue;
    }
    const v = figures.get(id);
    const hot = v !== undefined && v > 0 && scale !== null;
    const fill = hot ? heatColor(theme, scale.t(v)) : neutral.fill;
    g.dataset[PAINTED] = "true";
    g.dataset["heat"] = hot ? scale.t(v).toFixed(3) : "none";
    // Open modules keep their look: they nest, so their totals are figures in the header instead.
    if (open) continue;
    const isBox = g.classList.contains("vista-module");
    if (!isBox && g.dataset["kind"] !== "op" && g.dataset["kind"] !== "error" && v === undefined) {
      // Inputs, outputs, constants: keep their own look, dimmed, so the graph still reads.
      paintAttr(g, "opacity", "0.55");
      continue;
    }
    const shapes = g.querySelectorAll(isBox ? ":scope > rect" : ":scope > path");
    for (const s of shapes) {
      paintAttr(s, "fill", fill);
      if (!hot) paintAttr(s, "stroke", neutral.stroke);
    }
    const text = hot ? textOn(fill) : neutral.text;
    for (const t of g.querySelectorAll(":scope > text")) paintAttr(t, "fill", text);
    if (isBox && hot && key !== "params") boxFigure(g, formatMeasure(key, v), layout.rects[id]?.width, text, input);
  }
  return scale;
}

/**
 * The total on a closed box: right-aligned on its last line where the line leaves room, else
 * in place of that line (the parameter count, which the details panel still shows).
 */
function boxFigure(g: SVGGElement, text: string, width: number | undefined, color: string, input: PaintInput): void {
  if (width === undefined) return;
  // The figure is always on the element (tests, tooltips), drawn where it fits.
  paintAttr(g, "data-figure", text);
  const lines = g.querySelectorAll(":scope > text");
  const last = lines[lines.length - 1];
  if (last === undefined) return;
  const size = Number(last.getAttribute("font-size") ?? "10");
  const need = input.measure(text, size, 700);
  if (lines.length >= 3 && input.measure(last.textContent ?? "", size, 400) + 10 + 10 + need <= width - 10) {
    g.appendChild(figureText(text, width - 10, last.getAttribute("y") ?? "0", size, color));
  } else if (lines.length >= 3 && need <= width - 20) {
    paintAttr(last, "visibility", "hidden");
    g.appendChild(figureText(text, 10, last.getAttribute("y") ?? "0", size, color, "start"));
  }
}

function figureText(text: string, x: number, y: string, size: number, color: string, anchor: "start" | "end" = "end"): SVGTextElement {
  const t = document.createElementNS(SVG_NS, "text");
  t.setAttribute("class", "vista-insight-extra vista-heat-figure");
  t.setAttribute("x", String(x));
  t.setAttribute("y", y);
  t.setAttribute("text-anchor", anchor);
  t.setAttribute("font-family", FONT_FAMILY);
  t.setAttribute("font-size", String(size));
  t.setAttribute("font-weight", "700");
  t.setAttribute("fill", color);
  t.textContent = text;
  return t;
}

/** The total of an open module: on its header's first (class name) line, left of its controls. */
function titleFigure(g: SVGGElement, text: string, width: number, controls: number, input: PaintInput): void {
  paintAttr(g, "data-figure", text);
  g.dataset[PAINTED] = "true";
  const right = width - controls - 8;
  for (const line of [...g.querySelectorAll(":scope > text")].slice(0, 2)) {
    const size = Number(line.getAttribute("font-size") ?? "10.5");
    const used = 12 + input.measure(line.textContent ?? "", size, Number(line.getAttribute("font-weight") ?? "400"));
    const need = input.measure(text, 10.5, 700);
    if (used + 12 + need > right) continue;
    const t = figureText(text, right, line.getAttribute("y") ?? "0", 10.5, line.getAttribute("fill") ?? "currentColor");
    // Haloed like the title it sits beside: edges may cross the header.
    for (const a of ["stroke", "stroke-width", "stroke-linejoin", "paint-order"]) {
      const v = line.getAttribute(a);
      if (v !== null) t.setAttribute(a, v);
    }
    g.appendChild(t);
    return;
  }
}

/** The legend of a colour mode: the measure, the scale's ends in its unit, and what is grey. */
export function fillHeatLegend(legend: HTMLElement, key: MeasureKey | null, scale: HeatScale | null, theme: ThemeName): void {
  legend.replaceChildren();
  legend.hidden = key === null;
  if (key === null) return;
  legend.dataset["measure"] = key;
  const title = document.createElement("div");
  title.className = "vista-heat-title";
  title.textContent = `Colour: ${MEASURE_INFO[key].noun}${scale !== null && scale.max > scale.min ? " (log scale)" : ""}`;
  legend.appendChild(title);
  if (scale === null) {
    const none = document.createElement("div");
    none.className = "vista-heat-empty";
    none.textContent = key === "nonfinite" ? "All drawn values are finite." : "Nothing drawn has this measure.";
    legend.appendChild(none);
    return;
  }
  const row = document.createElement("div");
  row.className = "vista-heat-row";
  const lo = document.createElement("span");
  lo.className = "vista-heat-min";
  lo.textContent = formatMeasure(key, scale.min);
  const bar = document.createElement("span");
  bar.className = "vista-heat-bar";
  const stops = STOPS[theme];
  bar.style.background = `linear-gradient(to right, ${stops.map((s, i) => `${s} ${((i / (stops.length - 1)) * 100).toFixed(0)}%`).join(", ")})`;
  const hi = document.createElement("span");
  hi.className = "vista-heat-max";
  hi.textContent = formatMeasure(key, scale.max);
  row.append(lo, bar, hi);
  legend.appendChild(row);
  const note = document.createElement("div");
  note.className = "vista-heat-empty";
  const sw = document.createElement("span");
  sw.className = "vista-heat-swatch";
  sw.style.background = NEUTRAL[theme].fill;
  sw.style.borderColor = NEUTRAL[theme].stroke;
  note.append(sw, document.createTextNode(key === "nonfinite" ? " finite or not measured" : " none or not measured"));
  legend.appendChild(note);
}
