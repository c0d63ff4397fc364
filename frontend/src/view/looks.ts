/**
 * How each drawn thing looks and how big it is: text lines, shape and size of nodes and
 * closed boxes, and the header of open modules. Shared by layout sizing and drawing, so text
 * always fits the box Graphviz was given.
 */
import { formatCount, formatShape } from "../model/format";
import { leafGroupSize } from "../model/document";
import type { VisibleBox, VisibleContainer, VisibleItem, VisibleNode } from "../model/visible";
import type { Measure } from "./measure";

export type Shape = "op" | "input" | "output" | "parameter" | "buffer" | "constant" | "error" | "box";

export interface TextLine {
  readonly text: string;
  readonly size: number;
  readonly weight: number;
  readonly muted: boolean;
}

export interface Look {
  readonly shape: Shape;
  readonly width: number;
  readonly height: number;
  readonly lines: readonly TextLine[];
  /** Room kept on the right for the +/− toggle (boxes only). */
  readonly toggle: boolean;
  /** N: room kept left of the toggle for the "fold the N calls back" button; 0: none. */
  readonly fold: number;
}

export const TOGGLE_SIZE = 16;

/** Width of the fold-back button of a call in an unfolded run of `n` calls ("×24"). */
export function foldButtonWidth(n: number): number {
  return n > 0 ? 14 + 7 * String(n).length : 0;
}

/** Room the header of a box keeps right of its text: the toggle, and the fold-back button. */
function controlsWidth(fold: number): number {
  return TOGGLE_SIZE + (fold > 0 ? foldButtonWidth(fold) + 4 : 0);
}
export const HEADER_HEIGHT = 40;
const MAX_CHARS = 44;

export function truncate(text: string, max = MAX_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function line(text: string, size: number, weight: number, muted = false, max = MAX_CHARS): TextLine {
  return { text: truncate(text, max), size, weight, muted };
}

function widthOf(lines: readonly TextLine[], measure: Measure): number {
  let w = 0;
  for (const l of lines) w = Math.max(w, measure(l.text, l.size, l.weight));
  return Math.ceil(w);
}

export function paramText(n: number): string {
  return n === 0 ? "no params" : `${formatCount(n)} params`;
}

function nodeLook(item: VisibleNode, measure: Measure): Look {
  const n = item.node;
  const shape: Shape = item.failed ? "error" : n.kind;
  const lines: TextLine[] = [];
  if (n.kind === "parameter" || n.kind === "buffer") {
    lines.push(line(n.label, 11, 600));
    const t = n.outputs?.[0];
    const shape = t === undefined ? "" : formatShape(t.shape);
    if (item.shared) lines.push(line(shape === "" ? "shared" : `${shape} · shared`, 10, 400, true));
    else if (t !== undefined) lines.push(line(shape, 10, 400, true));
  } else if (n.kind === "constant") {
    lines.push(line(n.value ?? n.label, 11, 500));
  } else if (n.kind === "input" || n.kind === "output") {
    lines.push(line(n.label, 12, 600));
    if (n.value !== undefined) lines.push(line(n.value, 10, 400, true));
  } else {
    lines.push(line(n.label, 12, 600));
  }
  const pad = shape === "input" || shape === "output" ? 28 : shape === "constant" ? 26 : 20;
  const height = lines.length > 1 ? 36 : 26;
  const min = shape === "constant" ? 36 : 52;
  return { shape, width: Math.max(min, widthOf(lines, measure) + pad), height, lines, toggle: false, fold: 0 };
}

function boxLook(box: VisibleBox, index: { paths: readonly string[] }, measure: Measure): Look {
  const m = box.module;
  let lines: TextLine[];
  if (box.group !== undefined) {
    lines = [line(box.group.name, 12, 700), line(leafGroupSize(box.group), 10.5, 400, true)];
  } else {
    const title = box.repeat > 1 ? `${m.class_name} ×${box.repeat}` : m.class_name;
    const first = index.paths[0] ?? m.path;
    const last = index.paths[index.paths.length - 1] ?? m.path;
    const path = box.repeat > 1 ? `${first} … ${last}` : m.path === "" ? "(model)" : m.path;
    lines = [line(title, 12, 700), line(path, 10.5, 400, true), line(paramText(box.numParams), 10, 400, true)];
  }
  const width = Math.max(90, widthOf(lines, measure) + 24 + controlsWidth(box.run) + 6);
  // A group is drawn in the colours of its members, so it does not read as a module call.
  const shape = box.group?.kind ?? "box";
  return { shape, width, height: box.group !== undefined ? 40 : 54, lines, toggle: true, fold: box.run };
}

export function itemLook(item: VisibleItem, paths: (ids: readonly string[]) => string[], measure: Measure): Look {
  return item.type === "node" ? nodeLook(item, measure) : boxLook(item, { paths: paths(item.members) }, measure);
}

/** Space right of a header's controls (the toggle is drawn this far in from the box's right edge). */
export const CONTROL_INSET = 6;
/** Where the header's text starts, from the box's left edge (the renderer draws it there). */
export const HEADER_TEXT_X = 12;
/** How far right of the header's text an edge entering the box stays, so it never crosses it. */
const TITLE_CLEARANCE = 8;
/** How far left of its controls an edge entering the box stays, so it never runs under them. */
const CONTROL_CLEARANCE = 18;

/**
 * Header lines of an open module box, the width they need, and the width at its right end
 * that its controls take (no edge enters the box there; the layout is told, not copying it).
 */
export function headerLook(c: VisibleContainer, measure: Measure): { lines: TextLine[]; minWidth: number; control: number; title: number } {
  const m = c.module;
  const parts = [m.path === "" ? "(model)" : m.path, paramText(m.num_params)];
  if (c.peek > 0) parts.push(`1 of ${c.peek}, all identical`);
  const sub = c.group !== undefined ? leafGroupSize(c.group) : parts.join(" · ");
  const lines = [line(m.class_name, 12, 700), line(sub, 10.5, 400, true, 72)];
  const text = widthOf(lines, measure);
  return {
    lines,
    minWidth: text + 24 + controlsWidth(c.run) + 10,
    title: HEADER_TEXT_X + text + TITLE_CLEARANCE,
    control: CONTROL_INSET + controlsWidth(c.run) + CONTROL_CLEARANCE,
  };
}
