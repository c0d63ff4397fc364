/** The toolbar's actions: one typed list, so the buttons and the viewer's switch cannot drift apart. */

export const TOOLBAR_ACTIONS = [
  "zoom-in",
  "zoom-out",
  "fit",
  "toggle-minimap",
  "open-modules",
  "expand-all",
  "collapse-all",
  "export-svg",
  "export-png",
  "export-pdf",
  "toggle-theme",
] as const;

export type ToolbarAction = (typeof TOOLBAR_ACTIONS)[number];

/** The buttons in a module's header on the graph: the +/− and the fold-back "×N". */
export type GraphAction = "toggle" | "fold";

/** Buttons of the details and error panels, each wired where its panel is built. */
export type PanelAction = "close-details" | "show-failed" | "toggle-traceback" | "toggle-torch-frames";

const KNOWN: ReadonlySet<string> = new Set(TOOLBAR_ACTIONS);

/** The action a button's `data-action` names, or null for anything else. */
export function toolbarAction(value: string | undefined): ToolbarAction | null {
  return value !== undefined && KNOWN.has(value) ? (value as ToolbarAction) : null;
}

/** For the default of an exhaustive switch: a new action that is not handled fails to compile. */
export function unhandled(value: never): never {
  throw new Error(`unhandled action ${JSON.stringify(value)}`);
}
