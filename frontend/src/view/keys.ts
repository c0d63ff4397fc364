/**
 * The viewer's keyboard: arrows move the selection along the data and among siblings, Enter
 * opens and Backspace closes, U / D toggle lineage, Escape backs out, and `?` shows a help
 * overlay listing every key. Keys act only while the focus is in this viewer's graph or panel,
 * never while typing in its search or depth box, so a notebook's own shortcuts are left alone.
 */
import type { Move } from "../model/moves";

export interface KeyHandlers {
  move(where: Move): void;
  open(): void;
  close(): void;
  lineage(direction: "up" | "down"): void;
  /** Backs out one step (lineage, then selection); false when there was nothing to undo. */
  escape(): boolean;
  fit(): void;
  zoom(factor: number): void;
  search(): void;
}

/** Every key, as the help overlay lists it: one table, so the overlay and the handler agree. */
export const KEYS: readonly (readonly [string, string])[] = [
  ["↑", "Select the producer of the selection's first input"],
  ["↓", "Select the first consumer of the selection's output"],
  ["← / →", "Select the previous / next item in the same module"],
  ["Enter", "Open the selected module"],
  ["Backspace", "Close the selected module (or the module around the selection)"],
  ["U", "Highlight everything upstream of the selection"],
  ["D", "Highlight everything downstream of the selection"],
  ["Escape", "Clear the highlight, then the selection; close this help"],
  ["F", "Fit the graph to the view"],
  ["+ / −", "Zoom in / out"],
  ["/", "Search"],
  ["?", "Show or hide this help"],
];

const ARROWS: Readonly<Record<string, Move>> = {
  ArrowUp: "producer",
  ArrowDown: "consumer",
  ArrowLeft: "previous",
  ArrowRight: "next",
};

function buildHelp(): HTMLDivElement {
  const help = document.createElement("div");
  help.className = "vista-help";
  help.hidden = true;
  help.setAttribute("role", "dialog");
  help.setAttribute("aria-label", "Keyboard shortcuts");
  const title = document.createElement("h3");
  title.textContent = "Keyboard";
  const table = document.createElement("table");
  for (const [key, what] of KEYS) {
    const tr = document.createElement("tr");
    const th = document.createElement("th");
    const kbd = document.createElement("kbd");
    kbd.textContent = key;
    th.appendChild(kbd);
    const td = document.createElement("td");
    td.textContent = what;
    tr.append(th, td);
    table.appendChild(tr);
  }
  const hint = document.createElement("p");
  hint.textContent = "Click the graph first: keys act while the viewer has the focus.";
  help.append(title, table, hint);
  return help;
}

/** Wires the keys on `root` (the viewer); `canvas` holds the help overlay; `graph` takes the focus on a click. */
export function wireKeys(root: HTMLElement, canvas: HTMLElement, graph: SVGSVGElement, on: KeyHandlers): () => void {
  const help = buildHelp();
  const open = document.createElement("button");
  open.type = "button";
  open.className = "vista-help-button";
  open.textContent = "?";
  open.title = "Keyboard shortcuts (?)";
  open.setAttribute("aria-label", "Keyboard shortcuts");
  open.addEventListener("click", () => {
    help.hidden = !help.hidden;
  });
  canvas.append(help, open);
  graph.setAttribute("tabindex", "0");
  // d3-zoom stops the mousedown, so the graph is focused here, on the pointerdown before it.
  graph.addEventListener("pointerdown", () => graph.focus({ preventScroll: true }));
  const onKey = (event: KeyboardEvent): void => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target as Element;
    if (target.closest("input, textarea, select, [contenteditable]") !== null) return;
    // Buttons of the toolbar and panels keep their own Enter and Space.
    if ((event.key === "Enter" || event.key === " ") && target.closest("button, [role=button]") !== null) return;
    const handled = handle(event.key);
    if (handled) {
      event.preventDefault();
      event.stopPropagation();
    }
  };
  const handle = (key: string): boolean => {
    const arrow = ARROWS[key];
    if (arrow !== undefined) {
      on.move(arrow);
      return true;
    }
    switch (key) {
      case "Enter":
        on.open();
        return true;
      case "Backspace":
        on.close();
        return true;
      case "u":
      case "U":
        on.lineage("up");
        return true;
      case "d":
      case "D":
        on.lineage("down");
        return true;
      case "f":
      case "F":
        on.fit();
        return true;
      case "+":
      case "=":
        on.zoom(1.25);
        return true;
      case "-":
      case "−":
        on.zoom(0.8);
        return true;
      case "/":
        on.search();
        return true;
      case "?":
        help.hidden = !help.hidden;
        return true;
      case "Escape":
        if (!help.hidden) {
          help.hidden = true;
          return true;
        }
        return on.escape();
      default:
        return false;
    }
  };
  root.addEventListener("keydown", onKey);
  return () => root.removeEventListener("keydown", onKey);
}
