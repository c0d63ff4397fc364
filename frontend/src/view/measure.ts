/** Text width measurement for sizing nodes before layout (canvas when there is one). */
import { TEXT_FONT_FAMILY } from "./text-font";

// Each family ends with the document's text font (text-font.ts) before the generic family, so
// that a name the system fonts cannot draw takes its glyphs from it.
export const FONT_FAMILY =
  `system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Helvetica, Arial, "${TEXT_FONT_FAMILY}", sans-serif`;
/** Edge labels: fonts with Helvetica's metrics, which Graphviz uses to make room for them. */
export const LABEL_FAMILY = `Helvetica, Arial, "Liberation Sans", "Nimbus Sans", "${TEXT_FONT_FAMILY}", sans-serif`;
export const MONO_FAMILY = `ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", "${TEXT_FONT_FAMILY}", monospace`;

export type Measure = (text: string, size: number, weight?: number) => number;

/** An estimate for when no canvas exists (unit tests): 0.6 em per character. */
export const estimateText: Measure = (text, size, weight = 400) =>
  text.length * size * (weight >= 600 ? 0.62 : 0.56);

/** A measure backed by a 2D canvas, with a cache; falls back to the estimate. */
export function createMeasure(): Measure {
  let context: CanvasRenderingContext2D | null = null;
  try {
    context = document.createElement("canvas").getContext("2d");
  } catch {
    context = null;
  }
  if (context === null) return estimateText;
  const ctx = context;
  const cache = new Map<string, number>();
  let font = "";
  return (text, size, weight = 400) => {
    const key = `${weight}|${size}|${text}`;
    let width = cache.get(key);
    if (width === undefined) {
      const wanted = `${weight} ${size}px ${FONT_FAMILY}`;
      // Setting the font parses it (and resolves the family) every time: only when it changes.
      if (wanted !== font) {
        ctx.font = wanted;
        font = wanted;
      }
      width = ctx.measureText(text).width;
      cache.set(key, width);
    }
    return width;
  };
}
