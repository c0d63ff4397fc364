/**
 * The viewer's HTML around the graph: toolbar, search box and results, details panel, error
 * panel, progress indicator and legend. Only element creation and textContent.
 */
import type { TraceError } from "../model/document";
import type { Palette } from "./theme";

export interface Chrome {
  readonly root: HTMLDivElement;
  readonly toolbar: HTMLDivElement;
  readonly depth: HTMLInputElement;
  readonly search: HTMLInputElement;
  readonly results: HTMLDivElement;
  readonly canvas: HTMLDivElement;
  readonly svg: SVGSVGElement;
  readonly viewport: SVGGElement;
  readonly details: HTMLElement;
  readonly detailsContent: HTMLDivElement;
  readonly progress: HTMLDivElement;
  readonly legend: HTMLDivElement;
}

const SVG_NS = "http://www.w3.org/2000/svg";

function h<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className !== undefined) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

function button(action: string, text: string, title: string): HTMLButtonElement {
  const b = h("button", undefined, text);
  b.type = "button";
  b.dataset["action"] = action;
  b.title = title;
  b.setAttribute("aria-label", title);
  return b;
}

export function buildChrome(css: string): Chrome {
  const root = h("div", "vista-viewer");
  root.dataset["state"] = "loading";
  const style = document.createElement("style");
  style.textContent = css;
  root.appendChild(style);

  const toolbar = h("div", "vista-toolbar");
  toolbar.setAttribute("role", "toolbar");
  const sep = (): HTMLElement => h("span", "vista-sep");
  toolbar.append(
    button("zoom-in", "+", "Zoom in"),
    button("zoom-out", "−", "Zoom out"),
    button("fit", "Fit", "Fit the graph to the view"),
    sep(),
    button("expand-all", "Expand all", "Open every module"),
    button("collapse-all", "Collapse all", "Close every module below the model"),
  );
  const depthLabel = h("label", undefined, "Depth");
  const depth = h("input");
  depth.type = "number";
  depth.min = "0";
  depth.step = "1";
  depth.dataset["control"] = "depth";
  depth.setAttribute("aria-label", "Open depth");
  depthLabel.appendChild(depth);
  toolbar.append(depthLabel, sep());
  toolbar.append(
    button("export-svg", "SVG", "Export the current view as SVG"),
    button("export-png", "PNG", "Export the current view as PNG"),
    button("export-pdf", "PDF", "Export the current view as PDF"),
    sep(),
    button("toggle-theme", "◐", "Switch light/dark theme"),
  );
  const searchBox = h("div", "vista-search");
  const search = h("input");
  search.type = "search";
  search.placeholder = "Search ops, modules, classes…";
  search.dataset["control"] = "search";
  search.setAttribute("aria-label", "Search");
  const results = h("div", "vista-search-results");
  results.hidden = true;
  results.setAttribute("role", "listbox");
  searchBox.append(search, results);
  toolbar.appendChild(searchBox);
  root.appendChild(toolbar);

  const body = h("div", "vista-body");
  const canvas = h("div", "vista-canvas");
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("class", "vista-graph");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "Model graph");
  const viewport = document.createElementNS(SVG_NS, "g");
  viewport.setAttribute("class", "vista-viewport");
  svg.appendChild(viewport);
  canvas.appendChild(svg);
  const progress = h("div", "vista-progress", "Laying out…");
  progress.hidden = true;
  progress.setAttribute("role", "status");
  canvas.appendChild(progress);
  const legend = h("div", "vista-legend");
  canvas.appendChild(legend);
  const details = h("aside", "vista-details");
  details.hidden = true;
  const close = button("close-details", "×", "Close details");
  close.classList.add("vista-details-close");
  const detailsContent = h("div", "vista-details-content");
  details.append(close, detailsContent);
  body.append(canvas, details);
  root.appendChild(body);
  return { root, toolbar, depth, search, results, canvas, svg, viewport, details, detailsContent, progress, legend };
}

/** The legend of node kinds, coloured like the graph. */
export function fillLegend(legend: HTMLElement, palette: Palette): void {
  legend.replaceChildren();
  const entries: [string, keyof Palette["nodes"]][] = [
    ["input", "input"],
    ["output", "output"],
    ["op", "op"],
    ["parameter", "parameter"],
    ["constant", "constant"],
    ["module", "box"],
  ];
  for (const [text, shape] of entries) {
    const s = h("span", undefined, text);
    s.style.setProperty("--vv-sw-fill", palette.nodes[shape].fill);
    s.style.setProperty("--vv-sw-stroke", palette.nodes[shape].stroke);
    legend.appendChild(s);
  }
}

/** The error panel of a failed forward pass: exception, and its traceback. */
export function buildErrorPanel(error: TraceError, onShow: (() => void) | null): HTMLDivElement {
  const panel = h("div", "vista-error");
  panel.setAttribute("role", "alert");
  const title = h("div", "vista-error-title", `${error.type}: ${error.message}`);
  if (onShow !== null) {
    const b = button("show-failed", "Show failed node", "Centre the view on the failed node");
    b.addEventListener("click", onShow);
    title.appendChild(b);
  }
  panel.appendChild(title);
  const tb = h("pre", "vista-traceback", error.traceback);
  panel.appendChild(tb);
  return panel;
}
