/**
 * The hot-spot list: the module calls and ops with the most of a measure, with their share of
 * the whole model, sortable by figure, name or place in the forward pass; a click jumps to
 * the entry. Built with textContent only (names come from the model).
 */
import { formatMeasure, formatShare, MEASURE_INFO, MEASURES, type HotSpot, type Insight, type MeasureKey } from "../model/insight";

type Tab = "module" | "self" | "op";
type SortKey = "value" | "name" | "order";

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className !== undefined) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

export class HotSpotsPanel {
  readonly root: HTMLDivElement;
  private readonly body: HTMLDivElement;
  private readonly measureSelect: HTMLSelectElement;
  private insight: Insight | null = null;
  private key: MeasureKey | null = null;
  private tab: Tab = "module";
  private sort: SortKey = "value";
  private descending = true;

  constructor(
    parent: HTMLElement,
    private readonly onJump: (id: string) => void,
    private readonly onMeasure: (key: MeasureKey) => void,
  ) {
    this.root = el("div", "vista-hotspots");
    this.root.hidden = true;
    this.root.setAttribute("role", "region");
    this.root.setAttribute("aria-label", "Hot spots");
    const head = el("div", "vista-hotspots-head");
    head.appendChild(el("strong", undefined, "Hot spots"));
    this.measureSelect = el("select");
    this.measureSelect.dataset["control"] = "hot-spots-measure";
    this.measureSelect.setAttribute("aria-label", "Hot spots by");
    for (const key of MEASURES) {
      const o = el("option", undefined, MEASURE_INFO[key].label);
      o.value = key;
      this.measureSelect.appendChild(o);
    }
    this.measureSelect.addEventListener("change", () => this.onMeasure(this.measureSelect.value as MeasureKey));
    const tabs = el("span", "vista-hotspots-tabs");
    const tabTitles: Record<Tab, string> = {
      module: "Module calls by their total (everything inside them)",
      self: "Module calls by their own ops only, not their children's",
      op: "Single ops",
    };
    for (const [tab, text] of [["module", "Modules"], ["self", "Self"], ["op", "Ops"]] as const) {
      const b = el("button", undefined, text);
      b.type = "button";
      b.dataset["tab"] = tab;
      b.title = tabTitles[tab];
      b.addEventListener("click", () => {
        this.tab = tab;
        this.render();
      });
      tabs.appendChild(b);
    }
    const close = el("button", "vista-hotspots-close", "×");
    close.type = "button";
    close.title = "Close the hot-spot list";
    close.setAttribute("aria-label", "Close the hot-spot list");
    close.addEventListener("click", () => {
      this.hide();
      parent.closest(".vista-viewer")?.querySelector('[data-control="hot-spots"]')?.setAttribute("aria-pressed", "false");
    });
    head.append(this.measureSelect, tabs, close);
    this.body = el("div", "vista-hotspots-body");
    this.root.append(head, this.body);
    parent.appendChild(this.root);
  }

  get hidden(): boolean {
    return this.root.hidden === true;
  }

  hide(): void {
    this.root.hidden = true;
  }

  /** Shows the list for `key` (null: the document has no measure at all). */
  show(insight: Insight, key: MeasureKey | null): void {
    this.insight = insight;
    this.key = key;
    for (const o of this.measureSelect.options) {
      const reason = insight.missing(o.value as MeasureKey);
      o.disabled = reason !== null;
      o.title = reason ?? "";
    }
    if (key !== null) this.measureSelect.value = key;
    this.root.hidden = false;
    this.render();
  }

  private render(): void {
    this.body.replaceChildren();
    for (const b of this.root.querySelectorAll<HTMLButtonElement>("button[data-tab]")) {
      b.setAttribute("aria-pressed", String(b.dataset["tab"] === this.tab));
      // Parameters are held by parameter nodes, not ops.
      if (b.dataset["tab"] === "op") b.textContent = this.key === "params" ? "Tensors" : "Ops";
    }
    const { insight, key } = this;
    if (insight === null || key === null) {
      this.body.appendChild(el("div", "vista-hotspots-empty", "This document has no measure to rank by."));
      return;
    }
    const spots = insight.hotSpots(key, 50, this.tab === "self");
    const list = [...(this.tab === "op" ? spots.ops : spots.modules)];
    const dir = this.descending ? -1 : 1;
    list.sort((a, b) => {
      const c = this.sort === "value" ? a.value - b.value : this.sort === "name" ? (a.title < b.title ? -1 : a.title > b.title ? 1 : 0) : a.order - b.order;
      return c * dir || a.order - b.order;
    });
    this.root.dataset["measure"] = key;
    this.root.dataset["tab"] = this.tab;
    if (list.length === 0) {
      this.body.appendChild(el("div", "vista-hotspots-empty", `No ${this.tab === "op" ? "op" : "module"} has ${MEASURE_INFO[key].noun}.`));
      return;
    }
    const table = el("table", "vista-hotspots-table");
    const head = el("tr");
    const columns: [SortKey, string][] = [["order", "order"], ["name", this.tab === "op" ? "op" : "module"], ["value", MEASURE_INFO[key].label]];
    for (const [sort, text] of columns) {
      const th = el("th");
      const b = el("button", undefined, text + (this.sort === sort ? (this.descending ? " ▾" : " ▴") : ""));
      b.type = "button";
      b.dataset["sort"] = sort;
      b.title = `Sort by ${sort === "order" ? "place in the forward pass" : sort}`;
      b.addEventListener("click", () => {
        if (this.sort === sort) this.descending = !this.descending;
        else {
          this.sort = sort;
          this.descending = sort === "value";
        }
        this.render();
      });
      th.appendChild(b);
      head.appendChild(th);
    }
    table.appendChild(head);
    list.forEach((spot) => table.appendChild(this.row(spot, key)));
    this.body.appendChild(table);
  }

  private row(spot: HotSpot, key: MeasureKey): HTMLTableRowElement {
    const tr = el("tr", "vista-hotspot");
    tr.dataset["id"] = spot.id;
    tr.tabIndex = 0;
    tr.setAttribute("role", "button");
    tr.title = `Show ${spot.title} in the graph`;
    tr.appendChild(el("td", "vista-hotspot-order", String(spot.order + 1)));
    const name = el("td", "vista-hotspot-name");
    name.append(el("div", undefined, spot.title === "" ? "(model)" : spot.title), el("div", "vista-hotspot-detail", spot.detail));
    tr.appendChild(name);
    const figure = el("td", "vista-hotspot-value");
    const share = spot.share;
    figure.append(el("div", undefined, formatMeasure(key, spot.value)), el("div", "vista-hotspot-share", share === undefined ? "" : formatShare(share)));
    if (share !== undefined) {
      const bar = el("div", "vista-hotspot-bar");
      bar.style.width = `${Math.max(1, Math.min(100, share * 100)).toFixed(1)}%`;
      figure.appendChild(bar);
    }
    tr.appendChild(figure);
    tr.addEventListener("click", () => this.onJump(spot.id));
    tr.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        this.onJump(spot.id);
      }
    });
    return tr;
  }
}
