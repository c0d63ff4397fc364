/**
 * What one +/- changes in the engine's result, in Node: a document fully opened, then each
 * picked block of the module with the most children closed and opened again; per click the
 * engine's time and how many rects and routes stayed, moved by a common offset (in how many
 * groups) or changed. Sizes come from view/sizing.ts with the text estimate (no canvas).
 *
 *   npx esbuild scripts/click-moves.ts --bundle --platform=node --format=esm --outfile=/tmp/click-moves.mjs
 *   node /tmp/click-moves.mjs residual_10k.json 0,mid,last
 *
 * (a document written by benchmarks/_scale_models.py; blocks by index, `mid` or `last`).
 */
import { instance } from "@viz-js/viz";
import { readFileSync } from "node:fs";
import { LayoutEngine } from "../src/layout/engine";
import type { LayoutResult, Rect } from "../src/layout/types";
import { readDocument } from "../src/model/document";
import { expandAll, stateAtDepth, toggle } from "../src/model/state";
import { computeVisibleGraph } from "../src/model/visible";
import { sizeVisibleGraph } from "../src/view/sizing";
import { estimateText } from "../src/view/measure";

const file = process.argv[2] ?? "residual_10k.json";
const viz = await instance();
const render = (dot: string): string => {
  const r = viz.render(dot, { format: "json0", yInvert: true });
  if (r.status !== "success") throw new Error(r.errors.map((e) => e.message).join("; "));
  return r.output;
};
const index = readDocument(JSON.parse(readFileSync(file, "utf8")));
const engine = new LayoutEngine(render);
const layoutOf = (state: ReturnType<typeof stateAtDepth>): { r: LayoutResult; ms: number } => {
  const v = computeVisibleGraph(index, state);
  const g = sizeVisibleGraph(index, v, estimateText).graph;
  const t = performance.now();
  const r = engine.layout(g);
  return { r, ms: performance.now() - t };
};
const key = (dx: number, dy: number): string => `${dx.toFixed(2)},${dy.toFixed(2)}`;
function compare(a: LayoutResult, b: LayoutResult): string {
  let same = 0, moved = 0, resized = 0, added = 0;
  const groups = new Map<string, number>();
  for (const [id, rb] of Object.entries(b.rects)) {
    const ra = a.rects[id] as Rect | undefined;
    if (ra === undefined) { added++; continue; }
    if (ra.width !== rb.width || ra.height !== rb.height) { resized++; continue; }
    if (ra.x === rb.x && ra.y === rb.y) { same++; continue; }
    moved++;
    const k = key(rb.x - ra.x, rb.y - ra.y);
    groups.set(k, (groups.get(k) ?? 0) + 1);
  }
  const removed = Object.keys(a.rects).filter((id) => !(id in b.rects)).length;
  const ea = new Map(a.edges.map((e) => [e.id, e]));
  let rsame = 0, rshift = 0, rchanged = 0, radded = 0;
  const rgroups = new Map<string, number>();
  for (const e of b.edges) {
    const f = ea.get(e.id);
    if (f === undefined) { radded++; continue; }
    if (f.points.length !== e.points.length || f.points.length === 0) { rchanged++; continue; }
    const dx = e.points[0]!.x - f.points[0]!.x, dy = e.points[0]!.y - f.points[0]!.y;
    let uniform = true;
    for (let i = 0; i < e.points.length; i++) if (Math.abs(e.points[i]!.x - f.points[i]!.x - dx) > 1e-9 || Math.abs(e.points[i]!.y - f.points[i]!.y - dy) > 1e-9) { uniform = false; break; }
    if (uniform && (e.label === null) === (f.label === null) && (e.label === null || (Math.abs(e.label.x - f.label!.x - dx) < 1e-9 && Math.abs(e.label.y - f.label!.y - dy) < 1e-9))) {
      if (dx === 0 && dy === 0) rsame++;
      else { rshift++; const k = key(dx, dy); rgroups.set(k, (rgroups.get(k) ?? 0) + 1); }
    } else rchanged++;
  }
  const top = (m: Map<string, number>) => [...m.entries()].sort((x, y) => y[1] - x[1]).slice(0, 4).map(([k, n]) => `${n}@(${k})`).join(" ");
  return `rects ${Object.keys(b.rects).length}: same ${same}, moved ${moved} in ${groups.size} groups [${top(groups)}], resized ${resized}, added ${added}, removed ${removed}; ` +
    `routes ${b.edges.length}: same ${rsame}, shifted ${rshift} in ${rgroups.size} groups [${top(rgroups)}], changed ${rchanged}, added ${radded}`;
}
const open = expandAll(index, stateAtDepth(index, 1, { showParameters: true, showConstants: true }));
let state = open;
let t0 = performance.now();
let held = layoutOf(state);
console.log(`open all: ${(performance.now() - t0).toFixed(0)} ms, ${Object.keys(held.r.rects).length} rects`);
// The blocks: the children of the module with the most of them.
const children = new Map<string, string[]>();
for (const m of index.modules.values()) if (m.parent !== null) children.set(m.parent, [...(children.get(m.parent) ?? []), m.id]);
const blocks = [...children.values()].sort((a, b) => b.length - a.length)[0]!;
const picks = (process.argv[3] ?? "0,last").split(",").map((s) => (s === "last" ? blocks.length - 1 : s === "mid" ? blocks.length >> 1 : Number(s)));
for (const b of picks) {
  for (const sign of ["−", "+"]) {
    state = toggle(index, state, blocks[b]!);
    const next = layoutOf(state);
    console.log(`${sign} on block ${b}: layout ${next.ms.toFixed(0)} ms; ${compare(held.r, next.r)}`);
    held = next;
  }
}
