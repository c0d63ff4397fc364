/**
 * Imported first by the bundle's entry, so that it runs before the rest of the bundle (d3,
 * jsPDF, the viewer) is evaluated: starts the layout worker and Graphviz's compilation, which
 * then boot in parallel with the page evaluating the bundle, parsing the graph document and
 * mounting the viewer.
 */
import { prewarmLayoutClient } from "./layout/client";

try {
  prewarmLayoutClient();
} catch {
  // mount() starts the client again and reports a failure through the viewer.
}
