/**
 * The page's deflate + base64 texts (Graphviz's WebAssembly, the PDF chunk: see assets.ts) back
 * into bytes, with the browser's own decoders. Used on the page and in the layout worker.
 */

type Base64Decoder = { fromBase64?: (text: string) => Uint8Array<ArrayBuffer> };

/** Base64 text to bytes: the native decoder where there is one (Chrome 140+, Firefox 133+, Safari 18.2+). */
export function base64Bytes(text: string): Uint8Array<ArrayBuffer> {
  const native = (Uint8Array as unknown as Base64Decoder).fromBase64;
  if (typeof native === "function") return native(text);
  const raw = atob(text);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

/**
 * The inflated bytes of raw-deflate `bytes` as a stream. The whole input is written as one
 * chunk (reading it through `Blob.stream()` instead costs several times as long in Chromium).
 */
export function inflateRaw(bytes: Uint8Array<ArrayBuffer>): ReadableStream<Uint8Array> {
  const stream = new DecompressionStream("deflate-raw");
  const writer = stream.writable.getWriter();
  writer.write(bytes).catch(() => undefined);
  writer.close().catch(() => undefined);
  return stream.readable;
}
