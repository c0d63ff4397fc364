/**
 * The search box and its list of hits: typing searches (debounced), ↑/↓ walk the hits, Enter
 * jumps to the highlighted hit (the first by default), Escape clears, a click on a hit jumps
 * to it. Hit text is set through textContent only.
 */
import type { GraphIndex } from "../model/document";
import { search } from "../model/search";
import type { Chrome } from "./chrome";

/** Typing pauses this long before the search runs. */
const DEBOUNCE_MS = 120;
/** Hits listed at most. */
const MAX_HITS = 100;

/** Wires `chrome`'s search box: `choose(id)` is called with the hit the user picks. */
export function wireSearch(chrome: Chrome, index: () => GraphIndex | null, choose: (id: string) => void): void {
  const { search: box, results } = chrome;
  const pick = (id: string): void => {
    results.hidden = true;
    choose(id);
  };
  let debounce: ReturnType<typeof setTimeout> | undefined;
  // Typed text not yet searched: ↑/↓ and Enter search it first.
  let pending = false;
  box.addEventListener("input", () => {
    clearTimeout(debounce);
    pending = true;
    debounce = setTimeout(() => {
      pending = false;
      showHits(results, index(), box.value);
    }, DEBOUNCE_MS);
  });
  box.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (results.hidden || pending) {
        clearTimeout(debounce);
        pending = false;
        showHits(results, index(), box.value);
      }
      walk(results, event.key === "ArrowDown" ? 1 : -1);
    } else if (event.key === "Enter") {
      clearTimeout(debounce);
      if (results.hidden || pending) showHits(results, index(), box.value);
      pending = false;
      const chosen = results.querySelector<HTMLElement>("[data-target-id][aria-selected=true]") ?? results.querySelector<HTMLElement>("[data-target-id]");
      const id = chosen?.dataset["targetId"];
      if (id !== undefined) pick(id);
    } else if (event.key === "Escape") {
      box.value = "";
      results.hidden = true;
    }
  });
  results.addEventListener("click", (event) => {
    const hit = (event.target as Element).closest<HTMLElement>("[data-target-id]");
    const id = hit?.dataset["targetId"];
    if (id !== undefined) pick(id);
  });
}

function showHits(results: HTMLElement, index: GraphIndex | null, query: string): void {
  results.replaceChildren();
  if (index === null || query.trim() === "") {
    results.hidden = true;
    return;
  }
  const hits = search(index, query, MAX_HITS);
  if (hits.length === 0) {
    const none = document.createElement("div");
    none.className = "vista-search-empty";
    none.textContent = "No match";
    results.appendChild(none);
  }
  for (const hit of hits) {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset["targetId"] = hit.id;
    b.setAttribute("role", "option");
    b.dataset["type"] = hit.type;
    b.textContent = hit.title;
    const detail = document.createElement("span");
    detail.className = "vista-hit-detail";
    detail.textContent = hit.detail;
    b.appendChild(detail);
    results.appendChild(b);
  }
  results.hidden = false;
}

/** Moves the highlighted hit by `step`, wrapping around, and keeps it in view. */
function walk(results: HTMLElement, step: 1 | -1): void {
  const hits = [...results.querySelectorAll<HTMLElement>("[data-target-id]")];
  if (hits.length === 0) return;
  const at = hits.findIndex((h) => h.getAttribute("aria-selected") === "true");
  const next = at < 0 ? (step > 0 ? 0 : hits.length - 1) : (at + step + hits.length) % hits.length;
  hits[at]?.setAttribute("aria-selected", "false");
  const hit = hits[next] as HTMLElement;
  hit.setAttribute("aria-selected", "true");
  hit.scrollIntoView({ block: "nearest" });
}
