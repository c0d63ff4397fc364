/**
 * Code run only when needed: the PDF chunk, which the page hands the bundle (see assets.ts). The
 * text is our own build output, deflate-compressed and base64-encoded (see scripts/build.mjs): an esbuild
 * IIFE that assigns `var __vistaChunk = <its exports>`. It runs with `new Function` (no global
 * is left behind); under a Content-Security-Policy that refuses eval, as a Blob URL script that
 * hands its exports over on its own element.
 */
import { base64Bytes, inflateRaw } from "./bytes";

type ChunkScript = HTMLScriptElement & { __vistaChunk?: unknown };

export async function loadChunk<T>(packed: string, name: string): Promise<T> {
  const source = new TextDecoder().decode(await new Response(inflateRaw(base64Bytes(packed))).arrayBuffer());
  return runChunk<T>(source, name);
}

function runChunk<T>(source: string, name: string): Promise<T> {
  try {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    const exports = new Function(`${source}\nreturn __vistaChunk;\n//# sourceURL=${name}`)() as T;
    return Promise.resolve(exports);
  } catch (error) {
    if (!(error instanceof EvalError)) return Promise.reject(error);
  }
  return new Promise<T>((resolve, reject) => {
    const code = `document.currentScript.__vistaChunk=(function(){${source}\nreturn __vistaChunk;})();`;
    const url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
    const script = document.createElement("script") as ChunkScript;
    script.onload = () => {
      URL.revokeObjectURL(url);
      script.remove();
      if (script.__vistaChunk === undefined) reject(new Error(`${name} did not run`));
      else resolve(script.__vistaChunk as T);
    };
    script.onerror = () => {
      URL.revokeObjectURL(url);
      script.remove();
      reject(new Error(`${name} could not run: this page's Content-Security-Policy refuses both eval and blob: scripts`));
    };
    script.src = url;
    document.head.appendChild(script);
  });
}
