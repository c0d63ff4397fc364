/**
 * Edges as things to point at: hovering one highlights its line and label (CSS, see
 * styles.css), clicking one picks it (its tensors go to the details panel) and keeps it
 * highlighted through redraws until something else is picked.
 */

const EDGE = "g.vista-edge";

/** Calls `pick(edgeId)` when the user clicks a drawn edge (its line or its label). */
export function wireEdges(svg: SVGSVGElement, pick: (edgeId: string) => void): void {
  svg.addEventListener("click", (event) => {
    const id = (event.target as Element).closest(EDGE)?.getAttribute("data-edge");
    if (id !== null && id !== undefined) pick(id);
  });
}

/** Marks the edge `edgeId` (or none) as the selected one. */
export function markSelectedEdge(svg: SVGSVGElement, edgeId: string | null): void {
  // Called on every redraw: with nothing selected before or now there is nothing to look for.
  if (edgeId === null && svg.dataset["edgeSelected"] !== "true") return;
  svg.dataset["edgeSelected"] = String(edgeId !== null);
  for (const e of svg.querySelectorAll(`${EDGE}[data-selected]`)) {
    if (e.getAttribute("data-edge") !== edgeId) e.removeAttribute("data-selected");
  }
  if (edgeId === null) return;
  const el = svg.querySelector(`${EDGE}[data-edge="${CSS.escape(edgeId)}"]`);
  if (el === null) return;
  el.setAttribute("data-selected", "true");
  // Drawn last among the edges, so it is not hidden under the edges it crosses.
  el.parentNode?.appendChild(el);
}
