/**
 * The lineage control: two toggles in the details panel ("Upstream", "Downstream") that
 * highlight what the selected node or module depends on and what it feeds, dimming the rest
 * of the drawn graph; Escape (see keys.ts) turns them off.
 */
import { lineage, seedsOf } from "../model/lineage";
import type { VisibleGraph } from "../model/visible";

export type Direction = "up" | "down";

const LABELS: Readonly<Record<Direction, [string, string]>> = {
  up: ["↑ Upstream", "Highlight everything the selection depends on (key U)"],
  down: ["↓ Downstream", "Highlight everything the selection feeds (key D)"],
};

export class LineageControl {
  readonly bar: HTMLDivElement;
  private readonly on = { up: false, down: false };
  private readonly buttons: Record<Direction, HTMLButtonElement>;
  /** Something is dimmed now: only then does clearing walk the drawn graph (every redraw calls apply). */
  private dimmed = false;

  constructor(private readonly onChange: () => void) {
    this.bar = document.createElement("div");
    this.bar.className = "vista-lineage";
    this.bar.setAttribute("role", "group");
    this.bar.setAttribute("aria-label", "Lineage");
    const make = (d: Direction): HTMLButtonElement => {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset["lineage"] = d;
      const [text, title] = LABELS[d];
      b.textContent = text;
      b.title = title;
      b.setAttribute("aria-pressed", "false");
      b.addEventListener("click", () => this.toggle(d));
      this.bar.appendChild(b);
      return b;
    };
    this.buttons = { up: make("up"), down: make("down") };
  }

  get active(): boolean {
    return this.on.up || this.on.down;
  }

  toggle(d: Direction): void {
    this.on[d] = !this.on[d];
    this.sync();
    this.onChange();
  }

  /** Turns both directions off; false when they already were. */
  clear(): boolean {
    if (!this.active) return false;
    this.on.up = false;
    this.on.down = false;
    this.sync();
    this.onChange();
    return true;
  }

  private sync(): void {
    for (const d of ["up", "down"] as const) this.buttons[d].setAttribute("aria-pressed", String(this.on[d]));
  }

  /** Marks the drawn graph in `svg`: dims what is outside the lineage of `selected` (or nothing). */
  apply(svg: SVGSVGElement, visible: VisibleGraph | null, selected: string | null): void {
    this.bar.hidden = selected === null;
    const seeds = visible === null || selected === null || !this.active ? [] : seedsOf(visible, selected);
    const root = svg.querySelector(".vista-viewport");
    if (seeds.length === 0 || visible === null) {
      if (!this.dimmed) return;
      this.dimmed = false;
      root?.removeAttribute("data-lineage");
      for (const e of svg.querySelectorAll("[data-dim]")) e.removeAttribute("data-dim");
      return;
    }
    this.dimmed = true;
    const found = lineage(visible, seeds, this.on.up, this.on.down);
    root?.setAttribute("data-lineage", [this.on.up ? "up" : "", this.on.down ? "down" : ""].join(" ").trim());
    const mark = (el: Element, keep: boolean): void => {
      if (keep) el.removeAttribute("data-dim");
      else el.setAttribute("data-dim", "true");
    };
    for (const el of svg.querySelectorAll("g.vista-node, g.vista-module, g.vista-module-title")) {
      const id = el.getAttribute("data-id") ?? "";
      mark(el, visible.items.has(id) ? found.items.has(id) : found.containers.has(id));
    }
    for (const el of svg.querySelectorAll("g.vista-edge")) mark(el, found.edges.has(el.getAttribute("data-edge") ?? ""));
  }
}
