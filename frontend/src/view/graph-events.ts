/**
 * Clicks and keys on the drawn graph: a click picks a node or module (details), its +/−
 * toggles, its "×N" folds the run back; a double click toggles; Enter or Space on a focused
 * +/− or "×N" presses it and keeps the focus on the redrawn box's toggle.
 */
import type { GraphAction } from "./actions";
import { claimedByEdge } from "./edges";

export interface GraphHandlers {
  toggle(id: string): Promise<void>;
  refold(id: string): Promise<void>;
  pick(id: string): void;
  /** The box a call's run folds into (its first call), once folded back. */
  foldedBox(id: string): string;
}

const CONTROLS = '[data-action="toggle"], [data-action="fold"]';

function actionOf(control: Element): GraphAction {
  return control.getAttribute("data-action") === "fold" ? "fold" : "toggle";
}

export function wireGraph(svg: SVGSVGElement, on: GraphHandlers): void {
  svg.addEventListener("click", (event) => {
    // An edge drawn over a module's frame takes the click (edges.ts).
    if (claimedByEdge(event)) return;
    const target = event.target as Element;
    const owner = target.closest("g.vista-node, g.vista-module, g.vista-module-title");
    const id = owner?.getAttribute("data-id");
    if (owner === null || owner === undefined || id === null || id === undefined) return;
    const control = target.closest(CONTROLS);
    if (control === null) on.pick(id);
    else void press(on, actionOf(control), id);
  });
  svg.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    const control = (event.target as Element).closest(CONTROLS);
    const id = control?.closest("g.vista-module")?.getAttribute("data-id");
    if (control === null || control === undefined || id === null || id === undefined) return;
    event.preventDefault();
    const action = actionOf(control);
    // Folding back leaves the run's box, whose id is the run's first call.
    const focusId = action === "fold" ? on.foldedBox(id) : id;
    void press(on, action, id).then(() => {
      svg.querySelector<SVGGElement>(`g.vista-module[data-id="${CSS.escape(focusId)}"] [data-action="toggle"]`)?.focus();
    });
  });
  svg.addEventListener("dblclick", (event) => {
    const owner = (event.target as Element).closest("g.vista-module, g.vista-module-title");
    const id = owner?.getAttribute("data-id");
    if (id !== null && id !== undefined && (event.target as Element).closest(CONTROLS) === null) void on.toggle(id);
  });
}

function press(on: GraphHandlers, action: GraphAction, id: string): Promise<void> {
  switch (action) {
    case "toggle":
      return on.toggle(id);
    case "fold":
      return on.refold(id);
  }
}
