/** Tracebacks as the error panel shows them: torch's own module-call frames left out. No DOM. */

/** torch/nn/modules/module.py: the frames of Module.__call__ that every module call adds. */
const TORCH_MODULE = /(^|[\\/])torch[\\/]nn[\\/]modules[\\/]module\.py$/;
const FRAME = /^(\s*)File "(.*)", line \d+/;

/**
 * `traceback` without the frames of torch's `module.py`: each frame is its `File "…"` line and
 * the more indented lines under it (the code and its ^^^ marks). `dropped` counts the frames left out.
 */
export function withoutTorchFrames(traceback: string): { text: string; dropped: number } {
  const lines = traceback.split("\n");
  const kept: string[] = [];
  let dropped = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const frame = FRAME.exec(line);
    if (frame === null || !TORCH_MODULE.test(frame[2] ?? "")) {
      kept.push(line);
      continue;
    }
    dropped++;
    const indent = (frame[1] ?? "").length;
    while (i + 1 < lines.length) {
      const next = lines[i + 1] as string;
      const depth = next.length - next.trimStart().length;
      if (next.trim() === "" || depth <= indent) break;
      i++;
    }
  }
  return { text: kept.join("\n"), dropped };
}
