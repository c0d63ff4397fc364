/**
 * The bundle's entry: defines `globalThis.VistaViewer = { version, mount }` and nothing else
 * global (see viewer-contract.md).
 */
import "./prewarm";
import { mark } from "./perf";
import { mount } from "./view/viewer";

declare const __VISTA_VERSION__: string;

const api = Object.freeze({ version: __VISTA_VERSION__, mount });
(globalThis as unknown as { VistaViewer: typeof api }).VistaViewer = api;

mark("bundle-evaluated");
