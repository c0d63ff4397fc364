/**
 * The diff view: a diff document (diff.md) shown as its union graph with the changes marked
 * (diff-marks.ts), a bar that walks the changes in order ("3 of 24") and toggles to side-by-side
 * panes of a and b (side-by-side.ts). Each graph is drawn by a plain Viewer with hooks.
 */
import { changeTarget, edgeEnds, readDiffDocument, type Change, type DiffIndex, type Side } from "../model/diff";
import type { ViewerOptions } from "../model/schema.generated";
import { showDiffDetails, showEdgeDiff } from "./diff-details";
import { drawDiffMarks, fillDiffLegend } from "./diff-marks";
import { SideBySide } from "./side-by-side";
import type { TextFont } from "./text-font";
import type { ThemeName, ThemeOption } from "./theme";
import { Viewer, type ViewerHandle, type ViewerHooks } from "./viewer";
import css from "./diff.css";

export type DiffMode = "unified" | "side-by-side";

/** The handle of a diff view: a viewer's, acting on the graphs shown, and the diff's own controls. */
export interface DiffViewerHandle extends ViewerHandle {
  /** Selects the next change (after the last: the first), opening what hides it; resolves once drawn. */
  nextChange(): Promise<void>;
  previousChange(): Promise<void>;
  /** The walk's position: the index into `changes` of the change last walked to, or -1. */
  changeIndex(): number;
  setMode(mode: DiffMode): Promise<void>;
  mode(): DiffMode;
}

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

export class DiffViewer {
  readonly root: HTMLDivElement;
  private readonly unifiedBox: HTMLDivElement;
  private readonly panesBox: HTMLDivElement;
  private readonly position: HTMLSpanElement;
  private readonly summary: HTMLSpanElement;
  private readonly modeButtons: Record<DiffMode, HTMLButtonElement>;
  private diff: DiffIndex | null = null;
  private readonly union: Viewer;
  private panes: SideBySide | null = null;
  private current: DiffMode = "unified";
  private walked = -1;
  private theme: ThemeName | null = null;
  /** The element last selected, in the graph it was selected in (null: the union). */
  private picked: { side: Side | null; id: string } | null = null;
  readonly ready: Promise<void>;

  constructor(container: HTMLElement, document: unknown, private readonly options: ViewerOptions, private readonly textFont: Promise<TextFont> | null = null) {
    this.root = h("div", "vista-diff");
    this.root.dataset["state"] = "loading";
    this.root.dataset["mode"] = "unified";
    this.root.style.height = options.height ?? "100%";
    const style = h("style");
    style.textContent = css;
    const bar = h("div", "vista-diff-bar");
    bar.setAttribute("role", "toolbar");
    bar.setAttribute("aria-label", "Changes between the two traces");
    this.position = h("span", "vista-diff-position", "");
    this.position.setAttribute("aria-live", "polite");
    this.summary = h("span", "vista-diff-summary", "");
    this.modeButtons = {
      unified: button("diff-unified", "Unified", "One graph: both traces, the changes marked"),
      "side-by-side": button("diff-side-by-side", "Side by side", "a and b in two panes that move together"),
    };
    const modes = h("span", "vista-diff-modes");
    modes.setAttribute("role", "group");
    modes.append(this.modeButtons.unified, this.modeButtons["side-by-side"]);
    bar.append(
      button("previous-change", "◀ Previous", "Previous change"),
      this.position,
      button("next-change", "Next ▶", "Next change"),
      this.summary,
      modes,
    );
    this.unifiedBox = h("div", "vista-diff-unified");
    this.panesBox = h("div", "vista-diff-panes");
    this.panesBox.hidden = true;
    const views = h("div", "vista-diff-views");
    views.append(this.unifiedBox, this.panesBox);
    this.root.append(style, bar, views);
    container.appendChild(this.root);
    this.setPressed();
    bar.addEventListener("click", (event) => {
      const b = (event.target as Element).closest<HTMLButtonElement>("button[data-action]");
      switch (b?.dataset["action"]) {
        case "previous-change":
          void this.walk(-1);
          break;
        case "next-change":
          void this.walk(1);
          break;
        case "diff-unified":
          void this.setMode("unified");
          break;
        case "diff-side-by-side":
          void this.setMode("side-by-side");
          break;
      }
    });

    this.union = new Viewer(this.unifiedBox, document, { ...options, height: "auto" }, this.hooksFor(null, () => {
      this.diff = readDiffDocument(document);
      this.fillBar(this.diff);
      return this.diff.union.index;
    }), textFont);
    this.ready = this.union.ready.then(() => {
      this.root.dataset["state"] = "ready";
    });
    this.ready.catch(() => {
      this.root.dataset["state"] = "error-rendering";
    });
  }

  /** The hooks that mark the changes on the viewer of `side` (null: the union). */
  hooksFor(side: Side | null, read: () => import("../model/document").GraphIndex): ViewerHooks {
    const marks = () => (this.diff === null ? null : side === null ? this.diff.union : this.diff[side]);
    return {
      read,
      drawn: (view) => {
        const m = marks();
        if (m !== null) drawDiffMarks(view, m);
      },
      details: (panel, id) => {
        const m = marks();
        if (m !== null) showDiffDetails(panel, m, id, side);
      },
      edgeDetails: (panel, edge) => {
        const m = marks();
        if (m !== null) showEdgeDiff(panel, m, edge);
      },
      legend: (legend, palette) => fillDiffLegend(legend, palette),
      themed: (theme) => this.themed(theme, side),
      picked: (id) => this.onPicked(side, id),
      toggled: (id, how) => {
        if (side !== null && this.diff !== null) this.panes?.toggled(this.diff, side, id, how);
      },
      moved: (before, after) => this.panes?.moved(side, before, after),
    };
  }

  handle(): DiffViewerHandle {
    const each = <T>(f: (handle: ViewerHandle) => T): T[] => this.shown().map((v) => f(v.handle()));
    const all = async (f: (handle: ViewerHandle) => Promise<unknown>): Promise<void> => {
      await Promise.all(each(f));
    };
    return {
      ready: this.ready,
      openModules: () => all((v) => v.openModules()),
      expandAll: () => all((v) => v.expandAll()),
      collapseAll: () => all((v) => v.collapseAll()),
      setDepth: (d: number) => all((v) => v.setDepth(d)),
      search: (q: string) => this.union.handle().search(q),
      select: (id: string) => this.union.select(id),
      exportSVG: () => this.primary().handle().exportSVG(),
      exportPNG: () => this.primary().handle().exportPNG(),
      exportPDF: () => this.primary().handle().exportPDF(),
      setTheme: (t: ThemeOption) => {
        for (const v of this.viewers()) v.handle().setTheme(t);
      },
      destroy: () => {
        for (const v of this.viewers()) v.handle().destroy();
        this.root.remove();
      },
      nextChange: () => this.walk(1),
      previousChange: () => this.walk(-1),
      changeIndex: () => this.walked,
      setMode: (m: DiffMode) => this.setMode(m),
      mode: () => this.current,
    };
  }

  private viewers(): Viewer[] {
    return this.panes === null ? [this.union] : [this.union, this.panes.a, this.panes.b];
  }

  private shown(): Viewer[] {
    return this.current === "unified" || this.panes === null ? [this.union] : [this.panes.a, this.panes.b];
  }

  private primary(): Viewer {
    return this.current === "unified" || this.panes === null ? this.union : this.panes.b;
  }

  private fillBar(d: DiffIndex): void {
    const counts = { added: 0, removed: 0, changed: 0 };
    for (const c of d.changes) counts[c.status]++;
    const n = d.changes.length;
    this.summary.textContent =
      n === 0
        ? "Equal: both traces have the same graph"
        : `${n} change${n === 1 ? "" : "s"}: ${counts.added} added · ${counts.removed} removed · ${counts.changed} changed`;
    this.root.dataset["changes"] = String(n);
    this.showPosition();
    for (const b of this.root.querySelectorAll<HTMLButtonElement>("[data-action=previous-change], [data-action=next-change]")) b.disabled = n === 0;
  }

  private showPosition(): void {
    const n = this.diff?.changes.length ?? 0;
    this.position.textContent = n === 0 ? "no changes" : this.walked < 0 ? `– of ${n}` : `${this.walked + 1} of ${n}`;
  }

  private async walk(step: 1 | -1): Promise<void> {
    const d = this.diff;
    if (d === null || d.changes.length === 0) return;
    const n = d.changes.length;
    this.walked = this.walked < 0 ? (step > 0 ? 0 : n - 1) : (this.walked + step + n) % n;
    this.showPosition();
    await this.showChange(d, this.walked);
  }

  private async showChange(d: DiffIndex, i: number): Promise<void> {
    const change = d.changes[i];
    if (change === undefined) return;
    this.root.dataset["change"] = change.id;
    if (this.current === "unified" || this.panes === null) {
      const target = changeTarget(d, change, null);
      if (target !== null) {
        this.picked = { side: null, id: target };
        await this.show(this.union, d, change, null, target);
      }
      return;
    }
    const panes = this.panes;
    const targets = { a: changeTarget(d, change, "a"), b: changeTarget(d, change, "b") };
    const near = { a: targets.a === null ? nearestIn(d, change, "a") : null, b: targets.b === null ? nearestIn(d, change, "b") : null };
    // Remembered as b's element where it has one, so going back to one graph keeps it selected.
    if (targets.b !== null) this.picked = { side: "b", id: targets.b };
    else if (targets.a !== null) this.picked = { side: "a", id: targets.a };
    await Promise.all(
      (["a", "b"] as const).map((side) => {
        const target = targets[side];
        // Not in this graph (added, or removed): the closest module call around it that is, for context.
        const around = near[side];
        if (target === null) return around === null ? Promise.resolve() : panes[side].select(around);
        return this.show(panes[side], d, change, side, target);
      }),
    );
  }

  /** Selects what a change is at in one viewer: its element, or for an edge the edge itself (framing its target). */
  private async show(viewer: Viewer, d: DiffIndex, change: Change, side: Side | null, target: string): Promise<void> {
    if (change.element !== "edge") return viewer.select(target);
    const key = side === null ? change.id : [...d[side].byEdge].find(([, c]) => c === change)?.[0];
    const ends = key === undefined ? null : edgeEnds(key);
    if (ends === null) return viewer.select(target);
    await viewer.selectEdgeBetween(ends.source, ends.target);
  }

  private onPicked(side: Side | null, id: string): void {
    this.picked = { side, id };
    const d = this.diff;
    if (d === null) return;
    // A click on a changed element moves the walk there, so "Next" goes on from it.
    const unionId = side === null ? id : (d.toUnion[side].get(id) ?? null);
    const at = unionId === null ? -1 : d.changes.findIndex((c) => c.element !== "edge" && c.id === unionId);
    if (at >= 0) {
      this.walked = at;
      this.root.dataset["change"] = unionId ?? "";
      this.showPosition();
    }
    if (side !== null) this.panes?.picked(d, side, id);
  }

  private async setMode(mode: DiffMode): Promise<void> {
    const d = this.diff;
    if (mode === this.current || d === null) return;
    this.current = mode;
    this.root.dataset["mode"] = mode;
    this.setPressed();
    const unified = mode === "unified";
    this.unifiedBox.hidden = !unified;
    this.panesBox.hidden = unified;
    if (!unified && this.panes === null) {
      this.panes = new SideBySide(this.panesBox, d, { ...this.options, theme: this.theme ?? this.options.theme ?? "auto" }, (side, read) => this.hooksFor(side, read), this.textFont);
    }
    const picked = this.picked;
    if (unified) {
      const back = picked === null || picked.side === null ? null : (d.toUnion[picked.side].get(picked.id) ?? null);
      if (back !== null) {
        this.picked = { side: null, id: back };
        await this.union.select(back);
      }
      return;
    }
    const panes = this.panes as SideBySide;
    await panes.ready;
    if (picked !== null && picked.side === null) await panes.selectUnion(d, picked.id);
  }

  private setPressed(): void {
    for (const [mode, b] of Object.entries(this.modeButtons)) b.setAttribute("aria-pressed", String(mode === this.current));
  }

  /** One graph's theme changed (its toggle, or "auto" following the host): the others follow. */
  private themed(theme: ThemeName, from: Side | null): void {
    if (theme === this.theme) return;
    const first = this.theme === null;
    this.theme = theme;
    this.root.dataset["theme"] = theme;
    if (first) return;
    const source = from === null ? this.union : this.panes?.[from];
    for (const v of this.viewers()) if (v !== source) v.handle().setTheme(theme);
  }
}

export function mountDiff(container: HTMLElement, document: unknown, options: ViewerOptions, textFont: Promise<TextFont> | null = null): DiffViewerHandle {
  return new DiffViewer(container, document, options, textFont).handle();
}

/** The innermost module call around a change's union element that graph `side` has (its id there), or null. */
function nearestIn(d: DiffIndex, change: Change, side: Side): string | null {
  const union = d.union.index;
  const at = changeTarget(d, change, null);
  if (at === null) return null;
  let module: string | null = union.nodes.get(at)?.module ?? union.modules.get(at)?.parent ?? null;
  for (; module !== null; module = union.modules.get(module)?.parent ?? null) {
    const own = d.unionTo[side].get(module);
    if (own !== undefined) return own;
  }
  return null;
}
