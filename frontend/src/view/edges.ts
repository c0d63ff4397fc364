/**
 * Edges as things to point at: hovering one highlights its line and label (a `data-hover`
 * attribute, styled in styles.css), clicking one picks it (its tensors go to the details panel)
 * and keeps it highlighted through redraws until something else is picked. Pointing beside a
 * thin line still counts: the renderer finds the edge near the pointer in its spatial index, so
 * no edge carries a second, wide hit path of its own.
 */

const EDGE = "g.vista-edge";
/** Drawn above the edges (nodes, collapsed boxes, titles) or a control: they keep the pointer. */
const ABOVE = ".vista-layer-nodes, .vista-layer-titles, .vista-layer-highlight, [data-action]";

/** The drawn edge (its group) within reach of a screen point (client coordinates), or null. */
export type EdgeAt = (clientX: number, clientY: number) => Element | null;

/** Clicks that went to an edge, so that the module frame under it does not take them too. */
const claimed = new WeakSet<Event>();

/** Whether this click picked an edge (see wireEdges). */
export function claimedByEdge(event: Event): boolean {
  return claimed.has(event);
}

/** The drawn edge a pointer event points at: its line or label, else the nearest within reach. */
function edgeUnder(event: MouseEvent, edgeAt: EdgeAt): Element | null {
  const target = event.target as Element;
  const own = target.closest(EDGE);
  if (own !== null) return own;
  if (target.closest(ABOVE) !== null) return null;
  return edgeAt(event.clientX, event.clientY);
}

/** Lights the edge under the pointer and calls `pick(edgeId)` when the user clicks one. */
export function wireEdges(svg: SVGSVGElement, edgeAt: EdgeAt, pick: (edgeId: string) => void): () => void {
  let hovered: Element | null = null;
  const hover = (el: Element | null): void => {
    if (el === hovered) return;
    hovered?.removeAttribute("data-hover");
    el?.setAttribute("data-hover", "true");
    if (el === null) delete svg.dataset["edgeHover"];
    else svg.dataset["edgeHover"] = "true";
    hovered = el;
  };
  const onMove = (event: PointerEvent): void => {
    // A drag pans the view: nothing to hover meanwhile.
    hover(event.buttons === 0 ? edgeUnder(event, edgeAt) : null);
  };
  const onLeave = (): void => hover(null);
  const onClick = (event: MouseEvent): void => {
    const id = edgeUnder(event, edgeAt)?.getAttribute("data-edge");
    if (id === null || id === undefined) return;
    claimed.add(event);
    pick(id);
  };
  svg.addEventListener("pointermove", onMove);
  svg.addEventListener("pointerleave", onLeave);
  // Capture: runs before the graph's own click handler (graph-events.ts), which asks claimedByEdge.
  svg.addEventListener("click", onClick, true);
  return () => {
    svg.removeEventListener("pointermove", onMove);
    svg.removeEventListener("pointerleave", onLeave);
    svg.removeEventListener("click", onClick, true);
  };
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
