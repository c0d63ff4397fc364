/**
 * The side-by-side mode of the diff view: a (before) and b (after) in two panes that pan and
 * zoom together (a move of one is applied to the other, so their offset is kept) and select
 * matched elements together (the document's `matches`).
 */
import { zoomIdentity, type ZoomTransform } from "d3-zoom";
import type { DiffIndex, Side } from "../model/diff";
import type { GraphIndex } from "../model/document";
import type { ViewerOptions } from "../model/schema.generated";
import type { TextFont } from "./text-font";
import { Viewer, type OpenChange, type ViewerHooks } from "./viewer";

const WORDS: Readonly<Record<Side, string>> = { a: "a · before", b: "b · after" };

export class SideBySide {
  readonly a: Viewer;
  readonly b: Viewer;
  readonly ready: Promise<void>;

  constructor(box: HTMLElement, d: DiffIndex, options: ViewerOptions, hooks: (side: Side, read: () => GraphIndex) => ViewerHooks, textFont: Promise<TextFont> | null = null) {
    const make = (side: Side): Viewer => {
      const pane = document.createElement("div");
      pane.className = "vista-diff-pane";
      pane.dataset["side"] = side;
      const label = document.createElement("div");
      label.className = "vista-diff-pane-label";
      label.textContent = `${WORDS[side]}: ${rootClass(d, side)}`;
      const holder = document.createElement("div");
      holder.className = "vista-diff-pane-view";
      pane.append(label, holder);
      box.appendChild(pane);
      return new Viewer(holder, null, { ...options, height: "auto" }, hooks(side, () => d[side].index), textFont);
    };
    this.a = make("a");
    this.b = make("b");
    this.ready = Promise.all([this.a.ready, this.b.ready]).then(() => undefined);
  }

  /** The user moved pane `side` from `before` to `after`: the other pane makes the same move. */
  moved(side: Side | null, before: ZoomTransform, after: ZoomTransform): void {
    if (side === null) return;
    const other = (side === "a" ? this.b : this.a).cameraOf();
    const t = other.transform();
    const r = after.k / before.k;
    // The screen map after∘before⁻¹ (scale r, then shift), applied to the other pane's transform.
    const x = r * t.x + (after.x - r * before.x);
    const y = r * t.y + (after.y - r * before.y);
    other.setTransform(zoomIdentity.translate(x, y).scale(r * t.k));
  }

  /** `id` was picked in pane `side`: its match in the other pane is selected too. */
  picked(d: DiffIndex, side: Side, id: string): void {
    const match = side === "a" ? d.aToB.get(id) : d.bToA.get(id);
    if (match !== undefined) void (side === "a" ? this.b : this.a).select(match);
  }

  /** Module `id` was opened or closed in pane `side`: its match in the other pane follows. */
  toggled(d: DiffIndex, side: Side, id: string, how: OpenChange): void {
    const match = side === "a" ? d.aToB.get(id) : d.bToA.get(id);
    if (match !== undefined) void (side === "a" ? this.b : this.a).setOpen(match, how);
  }

  /** Selects what union element `id` is in each pane. */
  async selectUnion(d: DiffIndex, id: string): Promise<void> {
    await Promise.all(
      (["a", "b"] as const).map((side) => {
        const own = d.unionTo[side].get(id);
        return own === undefined ? Promise.resolve() : this[side].select(own);
      }),
    );
  }
}

/** The class of a graph's model; empty when the graph cannot be read (its pane then says why). */
function rootClass(d: DiffIndex, side: Side): string {
  try {
    const index = d[side].index;
    return index.modules.get(index.root)?.class_name ?? "";
  } catch {
    return "";
  }
}
