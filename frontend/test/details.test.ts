import { describe, expect, it } from "vitest";
import { withoutTorchFrames } from "../src/model/traceback";
import { fixture } from "./helpers";

const REAL = `Traceback (most recent call last):
  File "/home/u/nb.py", line 3, in <module>
    model(x)
  File "/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1778, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "C:\\py\\Lib\\site-packages\\torch\\nn\\modules\\module.py", line 1884, in _call_impl
    return inner()
  File "/home/u/model.py", line 12, in forward
    return torch.cat([a, b])
RuntimeError: Sizes of tensors must match`;

describe("tracebacks", () => {
  it("leave out torch's module.py frames and keep the user's", () => {
    const { text, dropped } = withoutTorchFrames(REAL);
    expect(dropped).toBe(2);
    expect(text).not.toContain("module.py");
    expect(text).not.toContain("_call_impl");
    expect(text).toContain('File "/home/u/nb.py", line 3');
    expect(text).toContain("    model(x)");
    expect(text).toContain("    return torch.cat([a, b])");
    expect(text.endsWith("RuntimeError: Sizes of tensors must match")).toBe(true);
  });

  it("leave other files named module.py alone", () => {
    const tb = 'Traceback (most recent call last):\n  File "/home/u/module.py", line 1, in f\n    g()\nValueError: x';
    expect(withoutTorchFrames(tb)).toEqual({ text: tb, dropped: 0 });
  });

  it("read the traceback vista-core records", () => {
    const tb = fixture("failing").error!.traceback;
    const { text, dropped } = withoutTorchFrames(tb);
    expect(dropped).toBe(3);
    expect(text).toContain("known_models.py");
    expect(text).toContain("torch.cat");
  });
});
