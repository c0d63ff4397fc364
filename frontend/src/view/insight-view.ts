/**
 * The viewer's insight controls: "colour by" (with its legend), the hot-spot list and the
 * transitions toggle in the toolbar, and the painting they drive after every draw. The
 * viewer hooks it in at three points (after drawing, the details panel, the first view);
 * nothing is computed until a control is used.
 */
import type { GraphIndex } from "../model/document";
import { insightOf, MEASURE_INFO, MEASURES, type ColourBy, type MeasureKey } from "../model/insight";
import type { VisibleGraph } from "../model/visible";
import type { LayoutResult } from "../layout/types";
import { findTransitions, transitionsByModule, type Transition, type TransitionKind } from "../model/transitions";
import { fillHeatLegend, paintHeat, unpaintAll } from "./heat";
import { HotSpotsPanel } from "./hotspots";
import { markNonfinite } from "./numerics";
import { fillTransitionsLegend, paintTransitions } from "./transitions";
import type { Measure } from "./measure";
import type { ThemeName } from "./theme";

/** What the insight view reads from its viewer. */
export interface InsightHost {
  index(): GraphIndex | null;
  visible(): VisibleGraph | null;
  layout(): LayoutResult | null;
  theme(): ThemeName;
  background(): string;
  /** Opens what must be opened, frames and selects `id`. */
  jump(id: string): Promise<void>;
}

export class InsightView {
  private colourBy: ColourBy = "none";
  readonly select: HTMLSelectElement;
  readonly legend: HTMLDivElement;
  readonly hotButton: HTMLButtonElement;
  private readonly hot: HotSpotsPanel;
  readonly transitionsButton: HTMLButtonElement;
  private readonly transitionsLegend: HTMLDivElement;
  private transitions: { found: Map<string, Transition>; byModule: Map<string, Record<TransitionKind, number>> } | null = null;
  private showTransitions = false;
  /** The document's first_nonfinite op, marked whatever the mode. */
  private nonfinite: string | null = null;
  /** Something was painted by the last paint (so the next one must restore it). */
  private painted = false;

  constructor(
    toolbar: HTMLElement,
    canvas: HTMLElement,
    private readonly viewport: SVGGElement,
    private readonly measure: Measure,
    private readonly host: InsightHost,
  ) {
    const group = document.createElement("span");
    group.className = "vista-insight-controls";
    const label = document.createElement("label");
    label.textContent = "Colour";
    const select = document.createElement("select");
    select.dataset["control"] = "colour-by";
    select.setAttribute("aria-label", "Colour by");
    select.title = "Colour ops and modules by a measure";
    const none = document.createElement("option");
    none.value = "none";
    none.textContent = "none";
    select.appendChild(none);
    for (const key of MEASURES) {
      const o = document.createElement("option");
      o.value = key;
      o.textContent = MEASURE_INFO[key].label;
      select.appendChild(o);
    }
    label.appendChild(select);
    this.select = select;
    const hotButton = document.createElement("button");
    hotButton.type = "button";
    hotButton.dataset["control"] = "hot-spots";
    hotButton.textContent = "Hot spots";
    hotButton.title = "List the modules and ops with the most of the chosen measure";
    hotButton.setAttribute("aria-pressed", "false");
    this.hotButton = hotButton;
    const transitionsButton = document.createElement("button");
    transitionsButton.type = "button";
    transitionsButton.dataset["control"] = "transitions";
    transitionsButton.textContent = "Transitions";
    transitionsButton.title = "Highlight dtype casts, device copies and layout copies";
    transitionsButton.setAttribute("aria-pressed", "false");
    this.transitionsButton = transitionsButton;
    group.append(label, hotButton, transitionsButton);
    const sep = document.createElement("span");
    sep.className = "vista-sep";
    toolbar.insertBefore(group, toolbar.querySelector(".vista-search"));
    toolbar.insertBefore(sep, group);

    const legends = document.createElement("div");
    legends.className = "vista-insight-legends";
    this.legend = document.createElement("div");
    this.legend.className = "vista-heat-legend";
    this.legend.hidden = true;
    this.transitionsLegend = document.createElement("div");
    this.transitionsLegend.className = "vista-transitions-legend";
    this.transitionsLegend.hidden = true;
    legends.append(this.legend, this.transitionsLegend);
    canvas.appendChild(legends);
    this.hot = new HotSpotsPanel(canvas, (id) => void this.host.jump(id), (key) => this.setColourBy(key));

    select.addEventListener("focus", () => this.refreshAvailability(), { once: true });
    select.addEventListener("pointerenter", () => this.refreshAvailability(), { once: true });
    select.addEventListener("pointerdown", () => this.refreshAvailability(), { once: true });
    select.addEventListener("change", () => this.setColourBy(select.value as ColourBy));
    hotButton.addEventListener("click", () => this.toggleHotSpots());
    transitionsButton.addEventListener("click", () => this.setTransitions(!this.showTransitions));
  }

  /** Marks `id` (the document's first_nonfinite) on every draw. */
  markFirstNonfinite(id: string | null): void {
    this.nonfinite = id;
  }

  /** Turns the transitions highlight on or off. */
  setTransitions(on: boolean): void {
    const index = this.host.index();
    if (index === null) return;
    this.showTransitions = on;
    this.transitionsButton.setAttribute("aria-pressed", String(on));
    if (on && this.transitions === null) {
      const found = findTransitions(index);
      this.transitions = { found, byModule: transitionsByModule(index, found) };
    }
    this.paint();
  }

  /** Marks the measures the document lacks as disabled, each with why (on first use only). */
  refreshAvailability(): void {
    const index = this.host.index();
    if (index === null) return;
    const insight = insightOf(index);
    const why: string[] = [];
    for (const o of this.select.options) {
      if (o.value === "none") continue;
      const reason = insight.missing(o.value as MeasureKey);
      o.disabled = reason !== null;
      o.title = reason ?? `Colour by ${MEASURE_INFO[o.value as MeasureKey].noun}`;
      if (reason !== null) why.push(reason);
    }
    this.select.title = ["Colour ops and modules by a measure", ...why.map((w) => `(${w})`)].join("\n");
  }

  get mode(): ColourBy {
    return this.colourBy;
  }

  /** Chooses the measure to colour by; a measure the document lacks is refused (stays as is). */
  setColourBy(key: ColourBy): void {
    const index = this.host.index();
    if (index === null) return;
    this.refreshAvailability();
    if (key !== "none" && insightOf(index).missing(key) !== null) {
      this.select.value = this.colourBy;
      return;
    }
    this.colourBy = key;
    this.select.value = key;
    this.paint();
    if (!this.hot.hidden) this.hot.show(insightOf(index), this.colourBy === "none" ? this.firstAvailable() : this.colourBy);
  }

  private firstAvailable(): MeasureKey | null {
    const index = this.host.index();
    if (index === null) return null;
    const insight = insightOf(index);
    return MEASURES.find((k) => insight.missing(k) === null) ?? null;
  }

  private toggleHotSpots(): void {
    const index = this.host.index();
    if (index === null) return;
    if (!this.hot.hidden) {
      this.hot.hide();
      this.hotButton.setAttribute("aria-pressed", "false");
      return;
    }
    this.refreshAvailability();
    const key = this.colourBy === "none" ? this.firstAvailable() : this.colourBy;
    this.hot.show(insightOf(index), key);
    this.hotButton.setAttribute("aria-pressed", "true");
  }

  /** Repaints the drawn graph for the current mode; call after every draw and theme change. */
  paint(): void {
    const index = this.host.index();
    const visible = this.host.visible();
    const layout = this.host.layout();
    if (index === null || visible === null || layout === null) return;
    const theme = this.host.theme();
    if (this.painted) unpaintAll(this.viewport);
    const key = this.colourBy === "none" ? null : this.colourBy;
    // The zoomed-out level of detail then leaves closed boxes' fills to the heat (see insight.css).
    const svg = this.viewport.ownerSVGElement;
    if (svg !== null) {
      if (key === null) delete svg.dataset["colourBy"];
      else svg.dataset["colourBy"] = key;
    }
    const marks = this.showTransitions || this.nonfinite !== null;
    this.painted = key !== null || marks;
    if (key !== null || this.legend.hidden !== true) {
      const scale = paintHeat({ viewport: this.viewport, visible, layout, insight: insightOf(index), key, theme, measure: this.measure });
      fillHeatLegend(this.legend, key, scale, theme);
    }
    const t = this.showTransitions ? this.transitions : null;
    if (t !== null) paintTransitions({ viewport: this.viewport, index, visible, found: t.found, byModule: t.byModule, theme, background: this.host.background() });
    if (t !== null || this.transitionsLegend.hidden !== true) fillTransitionsLegend(this.transitionsLegend, t?.found ?? null, theme);
    if (this.nonfinite !== null) {
      const owner = visible.nodeOwner.get(this.nonfinite);
      if (owner !== null && owner !== undefined) markNonfinite(this.viewport, owner, theme);
    }
  }
}
