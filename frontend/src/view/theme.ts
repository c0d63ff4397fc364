/**
 * Light and dark palettes. The graph is drawn with presentation attributes from these (not
 * CSS), so an exported SVG/PNG/PDF looks exactly like the screen without any stylesheet.
 */
import type { Shape } from "./looks";

export type ThemeName = "light" | "dark";
export type ThemeOption = "auto" | ThemeName;

export interface NodeColors {
  readonly fill: string;
  readonly stroke: string;
  readonly text: string;
}

export interface Palette {
  readonly background: string;
  readonly text: string;
  readonly muted: string;
  readonly edge: string;
  readonly edgeLabel: string;
  readonly nodes: Readonly<Record<Shape, NodeColors>>;
  /** Fills of open module boxes by nesting depth (cycled). */
  readonly moduleFills: readonly string[];
  readonly moduleStroke: string;
  readonly failed: string;
  readonly selected: string;
  readonly toggleFill: string;
}

export const PALETTES: Readonly<Record<ThemeName, Palette>> = {
  light: {
    background: "#ffffff",
    text: "#1f2328",
    muted: "#57606a",
    edge: "#8b949e",
    edgeLabel: "#4b5563",
    nodes: {
      op: { fill: "#e7efff", stroke: "#4a72c4", text: "#1b2f5e" },
      input: { fill: "#d9f7e3", stroke: "#1f9d55", text: "#0f5132" },
      output: { fill: "#fde2ef", stroke: "#c2327a", text: "#6b1342" },
      parameter: { fill: "#fff3cd", stroke: "#c98a00", text: "#5c3d00" },
      buffer: { fill: "#fff8e1", stroke: "#b7950b", text: "#5c3d00" },
      constant: { fill: "#eef0f3", stroke: "#8a94a3", text: "#374151" },
      error: { fill: "#fde0e0", stroke: "#d21f1f", text: "#7f1010" },
      box: { fill: "#f1f4f9", stroke: "#6b7a90", text: "#1f2328" },
    },
    moduleFills: ["#fbfcfe", "#f3f6fb", "#eaf0f8"],
    moduleStroke: "#a3afc2",
    failed: "#d21f1f",
    selected: "#f59e0b",
    toggleFill: "#ffffff",
  },
  dark: {
    background: "#16181d",
    text: "#e6e8eb",
    muted: "#a0a8b4",
    edge: "#7d8694",
    edgeLabel: "#b4bcc8",
    nodes: {
      op: { fill: "#1f3358", stroke: "#6f9cf0", text: "#dbe6ff" },
      input: { fill: "#123d28", stroke: "#3ecf7f", text: "#cdf5de" },
      output: { fill: "#4a1631", stroke: "#f06aa8", text: "#fbd3e6" },
      parameter: { fill: "#45370f", stroke: "#e0b23a", text: "#fbeec8" },
      buffer: { fill: "#3b3312", stroke: "#c9ab3d", text: "#fbeec8" },
      constant: { fill: "#2b2f36", stroke: "#8b95a5", text: "#d5d9df" },
      error: { fill: "#5a1717", stroke: "#ff5c5c", text: "#ffe1e1" },
      box: { fill: "#262b34", stroke: "#8b9ab2", text: "#e6e8eb" },
    },
    moduleFills: ["#1b1e24", "#20242c", "#262b34"],
    moduleStroke: "#4a5466",
    failed: "#ff5c5c",
    selected: "#fbbf24",
    toggleFill: "#16181d",
  },
};

/**
 * Set on the page's root element (`<html data-vista-host-theme="dark">`) when the page is framed
 * in a notebook that told it its theme: the page of a notebook output cannot read the
 * notebook's own DOM, so vista-jupyter's host script posts the theme in and the page's loader
 * sets this (see vista-render-html's page template).
 */
export const HOST_THEME_ATTRIBUTE = "data-vista-host-theme";

/**
 * The theme "auto" resolves to: the theme of the notebook around the page, when it said
 * (`data-vista-host-theme` on the root element), or when the viewer is in the notebook's own
 * page (JupyterLab's `data-jp-theme-light`, VS Code's `vscode-dark` body class); else the system
 * preference.
 */
export function resolveTheme(option: ThemeOption, doc: Document = document): ThemeName {
  if (option !== "auto") return option;
  const host = doc.documentElement?.getAttribute(HOST_THEME_ATTRIBUTE);
  if (host === "dark" || host === "light") return host;
  const body = doc.body as HTMLElement | null;
  if (body !== null) {
    const jp = body.getAttribute("data-jp-theme-light");
    if (jp === "false") return "dark";
    if (jp === "true") return "light";
    const cls = body.classList;
    if (cls.contains("vscode-dark") || cls.contains("vscode-high-contrast") || cls.contains("theme-dark")) return "dark";
    if (cls.contains("vscode-light")) return "light";
  }
  const view = doc.defaultView;
  if (view !== null && typeof view.matchMedia === "function") {
    return view.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }
  return "light";
}

/**
 * Calls `onChange` whenever a source resolveTheme() reads may have changed (the system's
 * preference, the host's attribute, JupyterLab's and VS Code's body markers); returns the
 * function that stops watching.
 */
export function watchHostTheme(doc: Document, onChange: () => void): () => void {
  const stops: (() => void)[] = [];
  const view = doc.defaultView;
  if (view !== null && typeof view.matchMedia === "function") {
    const mq = view.matchMedia("(prefers-color-scheme: dark)");
    mq.addEventListener("change", onChange);
    stops.push(() => mq.removeEventListener("change", onChange));
  }
  const body = doc.body as HTMLElement | null;
  if (typeof MutationObserver !== "undefined") {
    const observer = new MutationObserver(onChange);
    observer.observe(doc.documentElement, { attributes: true, attributeFilter: [HOST_THEME_ATTRIBUTE] });
    if (body !== null) observer.observe(body, { attributes: true, attributeFilter: ["class", "data-jp-theme-light"] });
    stops.push(() => observer.disconnect());
  }
  return () => {
    for (const stop of stops) stop();
  };
}
