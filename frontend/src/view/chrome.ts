/**
 * The viewer's HTML around the graph: toolbar, search box and results, details panel, error
 * panel, progress indicator and legend. Only element creation and textContent.
 */
import type { TraceError } from "../model/document";
import { withoutTorchFrames } from "../model/traceback";
import type { PanelAction, ToolbarAction } from "./actions";
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

function button(action: ToolbarAction | PanelAction, text: string, title: string): HTMLButtonElement {
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
    button("toggle-minimap", "Map", "Show or hide the overview map of the whole graph"),
    sep(),
    button("open-modules", "Open modules", "Open the model's modules down to torch.nn layers (a Linear stays a box); ×N runs show their first call"),
    button("expand-all", "Open everything", "Open every module call, torch.nn layers too, and unfold every ×N run"),
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
  search.placeholder = "Search ops, modules, shapes…";
  search.title = "Ops by name, modules by path or class, tensors by shape (1×12×128, *×768); ↑/↓ walk the hits";
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

/**
 * The error panel of a failed forward pass: the exception, and its traceback. Compact by
 * default (the message on at most two lines, the traceback's last lines, where the user's
 * failing line is), so the graph keeps most of a short output frame; "Traceback" expands it.
 * Call `showTracebackEnd` once the panel is in the document.
 */
export function buildErrorPanel(error: TraceError, onShow: (() => void) | null): HTMLDivElement {
  const panel = h("div", "vista-error");
  panel.setAttribute("role", "alert");
  panel.dataset["expanded"] = "false";
  const head = h("div", "vista-error-head");
  const title = h("div", "vista-error-title", `${error.type}: ${error.message}`);
  const actions = h("div", "vista-error-actions");
  if (onShow !== null) {
    const b = button("show-failed", "Show failed node", "Centre the view on the failed node");
    b.addEventListener("click", onShow);
    actions.appendChild(b);
  }
  // torch's own Module.__call__ frames hide the user's between them: left out until asked for.
  const short = withoutTorchFrames(error.traceback);
  const tb = h("pre", "vista-traceback", short.text);
  tb.tabIndex = 0;
  const frames = button("toggle-torch-frames", `+ ${short.dropped} torch frames`, "Show the frames of torch's module.py too");
  frames.setAttribute("aria-pressed", "false");
  frames.addEventListener("click", () => {
    const all = frames.getAttribute("aria-pressed") !== "true";
    frames.setAttribute("aria-pressed", String(all));
    tb.textContent = all ? error.traceback : short.text;
    frames.textContent = all ? `− ${short.dropped} torch frames` : `+ ${short.dropped} torch frames`;
    frames.title = all ? "Hide the frames of torch's module.py" : "Show the frames of torch's module.py too";
    showTracebackEnd(panel);
  });
  const more = button("toggle-traceback", "Full traceback", "Show the whole message and traceback");
  more.setAttribute("aria-expanded", "false");
  more.addEventListener("click", () => {
    const expanded = panel.dataset["expanded"] !== "true";
    panel.dataset["expanded"] = String(expanded);
    more.setAttribute("aria-expanded", String(expanded));
    more.textContent = expanded ? "Less" : "Full traceback";
    more.title = expanded ? "Show only the message and the last lines of the traceback" : "Show the whole message and traceback";
    showTracebackEnd(panel);
  });
  if (error.traceback.trim() !== "") actions.appendChild(more);
  if (short.dropped > 0) actions.appendChild(frames);
  head.append(title, actions);
  panel.append(head);
  if (error.traceback.trim() !== "") panel.appendChild(tb);
  return panel;
}

/**
 * Scrolls the error panel's traceback to its end, with the last frame (`File "…", line N`: the
 * call that raised, usually the user's code) at the top where it fits.
 */
export function showTracebackEnd(panel: HTMLElement): void {
  const tb = panel.querySelector<HTMLElement>("pre.vista-traceback");
  if (tb === null) return;
  const lines = (tb.textContent ?? "").replace(/\n+$/, "").split("\n");
  let last = -1;
  for (let i = 0; i < lines.length; i++) if (/^\s*File "/.test(lines[i] ?? "")) last = i;
  // Lines never wrap (white-space: pre), so a line's offset is its index times the line height.
  tb.scrollTop = last < 0 ? tb.scrollHeight : (tb.scrollHeight * last) / lines.length;
}
