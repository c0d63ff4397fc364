/**
 * User Timing marks (`vista:*`) on the page's performance timeline, so a benchmark can read
 * where the first view's time goes. No-ops where the User Timing API is missing.
 */
export function mark(name: string, startTime?: number): void {
  try {
    if (typeof performance === "undefined" || typeof performance.mark !== "function") return;
    if (startTime === undefined) performance.mark(`vista:${name}`);
    else performance.mark(`vista:${name}`, { startTime });
  } catch {
    // A startTime outside the timeline (clock skew between worker and page): skip the mark.
  }
}
