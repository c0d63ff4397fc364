"""The ``vista`` command: ``vista trace MODULE:FACTORY --input ...``, ``vista render GRAPH.json``
and ``vista demo``, run in-process through ``main(argv)`` (and once as a real process)."""

from __future__ import annotations

import importlib
import io
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from jupyter_pages import page_graph, page_options

import vista_core
from vista_jupyter import _cli
from vista_jupyter._cli import InputSpec, main, parse_input
from vista_render_html import render_html

FACTORIES = textwrap.dedent("""
    import torch

    seen = []  # (training, inputs) of every forward call

    class Net(torch.nn.Module):
        def __init__(self, width=8, fail=False):
            super().__init__()
            self.fc = torch.nn.Linear(4, width)
            self.drop = torch.nn.Dropout(0.5)
            self.fail = fail

        def forward(self, x, ids=None):
            seen.append((self.training, x, ids))
            if self.fail:
                raise ValueError("the shapes are wrong on purpose")
            h = self.drop(self.fc(x))
            return h if ids is None else h + ids.float().sum()

    def build(width=8, **kwargs):
        return Net(width, **kwargs)

    class Zoo:
        @staticmethod
        def small():
            return Net(2)

    class Stop(torch.nn.Module):
        def forward(self, x):
            raise KeyboardInterrupt

    NOT_CALLABLE = 5
""")


@pytest.fixture
def factories(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """A module ``clifactories`` in the current directory (tmp_path), as a user's would be."""
    (tmp_path / "clifactories.py").write_text(FACTORIES, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("clifactories", None)
    module = importlib.import_module("clifactories")
    yield module
    sys.modules.pop("clifactories", None)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# -- inputs ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "spec"), [
    ("1x3x224x224", InputSpec(None, (1, 3, 224, 224), "float32")),
    ("2x128:int64", InputSpec(None, (2, 128), "int64")),
    ("input_ids=1x128:long", InputSpec("input_ids", (1, 128), "long")),
    (" mask = 4 : bool ", InputSpec("mask", (4,), "bool")),
    ("():float64", InputSpec(None, (), "float64")),
])
def test_input_specs(text: str, spec: InputSpec) -> None:
    assert parse_input(text) == spec


@pytest.mark.parametrize(("text", "piece"), [
    ("1x", "sizes joined by x"), ("3xa", "sizes joined by x"), ("", "sizes joined by x"),
    ("1-2=3", "not an argument name"), ("1,3", "sizes joined by x"),
])
def test_bad_input_specs(text: str, piece: str) -> None:
    with pytest.raises(_cli.CommandError, match=piece):
        parse_input(text)


def test_inputs_have_the_shapes_dtypes_and_values_asked_for() -> None:
    import torch

    args, kwargs = _cli.build_inputs([parse_input("2x3"), parse_input("2x3:int64"), parse_input("m=5:bool")])
    assert [(a.shape, a.dtype) for a in args] == [((2, 3), torch.float32), ((2, 3), torch.int64)]
    assert set(args[1].unique().tolist()) <= {0, 1}
    assert kwargs["m"].dtype == torch.bool
    again, _ = _cli.build_inputs([parse_input("2x3")])
    assert torch.equal(again[0], args[0])  # seeded
    other, _ = _cli.build_inputs([parse_input("2x3")], seed=1)
    assert not torch.equal(other[0], args[0])
    zeros, _ = _cli.build_inputs([parse_input("2x3"), parse_input("2:int64")], zeros=True)
    assert all(not z.any() for z in zeros)
    meta, _ = _cli.build_inputs([parse_input("2x3")], device="meta")
    assert meta[0].is_meta


# -- vista trace ---------------------------------------------------------------------------

def test_trace_writes_the_page(factories: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(capsys, "trace", "clifactories:build", "--input", "3x4", "--input", "ids=3x2:int64",
                            "--kwargs-json", '{"width": 6}', "--depth", "1", "--theme", "dark",
                            "-o", "net.html", "--json", "net.json")
    assert (status, err) == (0, "")
    page = (tmp_path / "net.html").read_text(encoding="utf-8")
    graph = page_graph(page)
    assert out == f"Wrote the graph of Net (3 module calls, 5 ops) to {(tmp_path / 'net.html').resolve()}\n"
    inputs = {n["name"]: n["outputs"][0] for n in graph["nodes"] if n["kind"] == "input"}
    assert inputs["x"]["shape"] == [3, 4] and inputs["x"]["dtype"] == "float32"
    assert inputs["ids"]["shape"] == [3, 2] and inputs["ids"]["dtype"] == "int64"
    assert next(p["shape"] for m in graph["modules"] if m["path"] == "fc" for p in m["parameters"]) == [6, 4]
    assert page_options(page)["depth"] == 1 and page_options(page)["theme"] == "dark"
    assert vista_core.Graph.from_json((tmp_path / "net.json").read_text(encoding="utf-8")).to_dict() == graph
    training, x, _ = factories.seen[-1]
    assert training is False  # eval mode by default
    assert x.abs().sum() > 0  # random, not zeros


def test_trace_is_reproducible(factories: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "trace", "clifactories:Net", "--input", "3x4", "-o", "a.html")[0] == 0
    assert _run(capsys, "trace", "clifactories:Net", "--input", "3x4", "-o", "b.html")[0] == 0
    assert (tmp_path / "a.html").read_bytes() == (tmp_path / "b.html").read_bytes()


def test_trace_options(factories: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "trace", "clifactories:Zoo.small", "--input", "3x4", "--train", "--zeros",
                "--no-parameters")[0] == 0
    page = (tmp_path / "small.html").read_text(encoding="utf-8")  # the default name: the factory's
    assert page_options(page)["showParameters"] is False
    training, x, _ = factories.seen[-1]
    assert training is True and not x.any()


def test_trace_records_stats_and_timing_when_asked(factories: ModuleType, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "trace", "clifactories:Net", "--input", "3x4", "-o", "plain.html")[0] == 0
    plain = page_graph((tmp_path / "plain.html").read_text(encoding="utf-8"))
    assert _run(capsys, "trace", "clifactories:Net", "--input", "3x4", "--stats", "--timing", "-o", "both.html")[0] == 0
    both = page_graph((tmp_path / "both.html").read_text(encoding="utf-8"))
    for graph, wanted in ((plain, False), (both, True)):
        ops = [n for n in graph["nodes"] if n["kind"] == "op"]
        assert ops and all(("time_us" in n) is wanted for n in ops)
        assert all(("stats" in n["outputs"][0]) is wanted for n in ops if n["outputs"][0]["dtype"] == "float32")
        assert ("time_us" in graph["modules"][0]) is wanted


def test_trace_on_the_meta_device(factories: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _run(capsys, "trace", "clifactories:build", "--meta", "--input", "3x4", "-o", "m.html")
    assert (status, err) == (0, "")
    graph = page_graph((tmp_path / "m.html").read_text(encoding="utf-8"))
    assert {n["outputs"][0]["device"] for n in graph["nodes"] if n.get("outputs")} == {"meta"}
    assert factories.seen[-1][1].is_meta


def test_a_failing_forward_pass_writes_its_graph_and_exits_1(factories: ModuleType, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(capsys, "trace", "clifactories:build", "--kwargs-json", '{"fail": true}',
                            "--input", "3x4", "-o", "f.html")
    assert (status, out) == (1, "")
    assert "raised ValueError: the shapes are wrong on purpose" in err
    assert str((tmp_path / "f.html").resolve()) in err
    assert page_graph((tmp_path / "f.html").read_text(encoding="utf-8"))["error"]["type"] == "ValueError"


def test_an_interrupt_in_the_forward_pass_is_raised_after_the_page(factories: ModuleType, tmp_path: Path) -> None:
    with pytest.raises(KeyboardInterrupt):
        main(["trace", "clifactories:Stop", "--input", "1", "-o", "stop.html"])
    assert (tmp_path / "stop.html").is_file()


def test_a_failing_factory_shows_its_traceback(factories: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _run(capsys, "trace", "clifactories:build", "--kwargs-json", '{"depth": 3}')
    assert status == 1
    assert "Traceback" in err and "unexpected keyword argument 'depth'" in err
    assert "building the model with clifactories:build(...) raised" in err


@pytest.mark.parametrize(("argv", "piece"), [
    (["nofactory"], "is not MODULE:FACTORY"),
    (["no_such_module_xyz:build"], "could not import 'no_such_module_xyz'"),
    (["clifactories:missing"], "has no 'missing'"),
    (["clifactories:Zoo.large"], "no attribute 'large'"),
    (["clifactories:NOT_CALLABLE"], "is a int, not a callable"),
    (["clifactories:build", "--kwargs-json", "{width: 3}"], "--kwargs-json is not valid JSON"),
    (["clifactories:build", "--kwargs-json", "[3]"], "must be a JSON object"),
    (["clifactories:build", "--input", "3x4:float99"], "'float99' is not a torch dtype"),
    (["clifactories:build", "--input", "ids=3:int64", "--input", "3x4"], "positional inputs come before"),
    (["clifactories:build", "--input", "a=3", "--input", "a=3"], "'a' is given twice"),
    (["clifactories:build", "-o", "no/such/dir/page.html"], "does not exist"),
    (["clifactories:build", "--depth", "-1"], "'depth'"),
])
def test_command_mistakes_say_what_to_do(factories: ModuleType, capsys: pytest.CaptureFixture[str],
                                         argv: list[str], piece: str) -> None:
    status, out, err = _run(capsys, "trace", *argv)
    assert status == 2 and out == ""
    assert err.startswith("vista trace: ") and piece in err, err
    assert len(err.splitlines()) == 1


# -- vista render --------------------------------------------------------------------------

@pytest.fixture
def saved_graph(tmp_path: Path) -> Path:
    import torch

    path = tmp_path / "graph.json"
    path.write_text(vista_core.trace(torch.nn.Linear(3, 2), torch.randn(1, 3)).to_json(), encoding="utf-8")
    return path


def test_render_writes_the_page(saved_graph: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "render", str(saved_graph), "-o", str(tmp_path / "p.html"), "--depth", "2",
                          "--title", "My model", "--no-constants")
    assert status == 0
    assert out == f"Wrote the page of {saved_graph} to {(tmp_path / 'p.html').resolve()}\n"
    expected = render_html(saved_graph.read_text(encoding="utf-8"), depth=2, title="My model", show_constants=False)
    assert (tmp_path / "p.html").read_text(encoding="utf-8") == expected
    assert _run(capsys, "render", str(saved_graph))[0] == 0  # default: next to the document
    assert (tmp_path / "graph.html").is_file()


def test_render_reads_stdin(saved_graph: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(saved_graph.read_text(encoding="utf-8")))
    assert _run(capsys, "render", "-", "-o", str(tmp_path / "s.html"))[0] == 0
    assert (tmp_path / "s.html").read_text(encoding="utf-8") == render_html(saved_graph.read_text(encoding="utf-8"))


@pytest.mark.parametrize(("text", "piece"), [
    ("{", "not valid JSON"),
    ('{"schema_version": "9.0", "modules": [], "nodes": [], "edges": []}', "9.0"),
    ("[]", "JSON object"),
])
def test_render_refuses_bad_documents(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
                                      piece: str) -> None:
    (tmp_path / "bad.json").write_text(text, encoding="utf-8")
    status, _, err = _run(capsys, "render", str(tmp_path / "bad.json"))
    assert status == 2
    assert err.startswith(f"vista render: could not render '{tmp_path / 'bad.json'}'") and piece in err, err
    assert not (tmp_path / "bad.html").exists()


def test_render_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _run(capsys, "render", str(tmp_path / "none.json"))
    assert status == 2 and "could not read" in err and "No such file" in err


def test_summary_prints_the_graph_s_table(saved_graph: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "summary", str(saved_graph), "--depth", "1")
    assert status == 0
    assert out == vista_core.Graph.from_json(saved_graph.read_text(encoding="utf-8")).summary(depth=1) + "\n"
    assert "Linear" in out and "FLOPs" in out


@pytest.mark.parametrize(("text", "piece"), [
    ("{", "JSON"),
    ('{"schema_version": "9.0", "modules": [], "nodes": [], "edges": []}', "9.0"),
])
def test_summary_refuses_bad_documents(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
                                       piece: str) -> None:
    (tmp_path / "bad.json").write_text(text, encoding="utf-8")
    status, out, err = _run(capsys, "summary", str(tmp_path / "bad.json"))
    assert status == 2 and out == ""
    assert err.startswith(f"vista summary: could not summarise '{tmp_path / 'bad.json'}'") and piece in err, err


def test_summary_refuses_a_bad_depth(saved_graph: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _run(capsys, "summary", str(saved_graph), "--depth", "-1")
    assert status == 2 and "depth" in err, err


# -- the command itself --------------------------------------------------------------------

def test_demo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "demo", str(tmp_path / "d.html"), "--depth", "1")
    assert status == 0 and "d.html" in out
    assert page_options((tmp_path / "d.html").read_text(encoding="utf-8"))["depth"] == 1


def test_help_reads_like_the_readme(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    for piece in ("usage: vista", "trace", "render", "demo", "vista trace torchvision.models:resnet18 --input",
                  "--meta", "vista render graph.json -o page.html", "<iframe"):
        assert piece in text, piece
    with pytest.raises(SystemExit):
        main(["trace", "--help"])
    text = capsys.readouterr().out
    for piece in ("input_ids=1x128:int64", "--kwargs-json", "--zeros", "--seed", "eval mode", "exits with status 1"):
        assert piece in text, piece


def test_no_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([])
    assert info.value.code == 2
    assert "COMMAND" in capsys.readouterr().err


def test_the_console_script_is_declared() -> None:
    pyproject = (Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8")
    scripts = pyproject.split("[project.scripts]", 1)[1].split("\n[", 1)[0]
    assert 'vista = "vista_jupyter._cli:main"' in scripts.splitlines()


@pytest.mark.slow
def test_runs_as_a_module(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "vista_jupyter", "trace", "torch.nn:Linear", "--kwargs-json",
                           '{"in_features": 4, "out_features": 2}', "--input", "3x4", "-o", "lin.html"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"Wrote the graph of Linear (1 module call, 1 op) to {tmp_path / 'lin.html'}\n"


def test_paths_and_messages_with_lone_surrogates_are_printed(factories: ModuleType, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A file name of non-UTF-8 bytes reaches argv as a lone surrogate (surrogateescape); the
    lines the command prints show it as an escape instead of raising UnicodeEncodeError."""
    status, out, _ = _run(capsys, "trace", "clifactories:build", "--input", "3x4", "-o", "caf\udce9.html",
                          "--json", "caf\udce9.json")
    assert status == 0 and out.endswith("caf\\udce9.html\n")
    assert (tmp_path / "caf\udce9.html").is_file()
    status, out, _ = _run(capsys, "render", "caf\udce9.json", "-o", "page-\udcff.html")
    assert status == 0 and out == f"Wrote the page of caf\\udce9.json to {tmp_path}/page-\\udcff.html\n"
    status, _, err = _run(capsys, "render", "missing-\udcff.json")
    assert status == 2 and "missing-\\udcff.json" in err
    status, out, _ = _run(capsys, "demo", "demo-\udcff.html")
    assert status == 0 and "demo-\\udcff.html" in out
    status, _, err = _run(capsys, "trace", "clifactories:build", "--kwargs-json", '{"fail": true}', "--input", "3x4",
                          "-o", "f\udcff.html")
    assert status == 1 and "f\\udcff.html" in err


def test_diff_prints_what_changed_and_exits_1(saved_graph: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    import torch

    other = tmp_path / "other.json"
    other.write_text(vista_core.trace(torch.nn.Linear(3, 4), torch.randn(1, 3)).to_json(), encoding="utf-8")
    status, out, _ = _run(capsys, "diff", str(saved_graph), str(other), "-o", str(tmp_path / "d.html"),
                          "--json", str(tmp_path / "d.json"), "--depth", "1")
    assert status == 1
    expected = vista_core.diff(saved_graph.read_text(encoding="utf-8"), other.read_text(encoding="utf-8"))
    assert out.startswith(expected.summary() + "\n")
    assert "outputs[0].shape 1×2 → 1×4" in out
    assert f"Wrote the page of the diff to {(tmp_path / 'd.html').resolve()}" in out
    assert (tmp_path / "d.json").read_text(encoding="utf-8") == expected.to_json()
    assert (tmp_path / "d.html").read_text(encoding="utf-8") == render_html(expected, depth=1)


def test_diff_of_a_document_with_itself_exits_0(saved_graph: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(saved_graph.read_text(encoding="utf-8")))
    status, out, _ = _run(capsys, "diff", "-", str(saved_graph))
    assert status == 0 and out.startswith("The two traces are equal")


def test_diff_mistakes_exit_2(saved_graph: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bad.json").write_text('{"schema_version": "9.0"}', encoding="utf-8")
    status, out, err = _run(capsys, "diff", str(saved_graph), str(tmp_path / "bad.json"))
    assert status == 2 and out == "" and "vista diff: could not compare" in err and "9.0" in err
    status, _, err = _run(capsys, "diff", "-", "-")
    assert status == 2 and "stdin" in err
    status, _, err = _run(capsys, "diff", str(saved_graph), str(tmp_path / "none.json"))
    assert status == 2 and "could not read" in err


# -- saved pages wherever documents go -------------------------------------------------------

def test_pages_are_read_wherever_documents_are(saved_graph: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    text = saved_graph.read_text(encoding="utf-8")
    page = tmp_path / "saved.html"
    page.write_text(render_html(text, depth=1), encoding="utf-8")
    assert _run(capsys, "summary", str(page))[1] == _run(capsys, "summary", str(saved_graph))[1]
    status, out, _ = _run(capsys, "diff", str(page), str(saved_graph))
    assert status == 0 and out.startswith("The two traces are equal"), out
    # Rendered again with other options: the page the document itself gives with them.
    assert _run(capsys, "render", str(page), "-o", str(tmp_path / "again.html"), "--depth", "3")[0] == 0
    assert (tmp_path / "again.html").read_text(encoding="utf-8") == render_html(text, depth=3)


def test_render_never_overwrites_the_page_it_reads(saved_graph: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "saved.html"
    page.write_text(before := render_html(saved_graph.read_text(encoding="utf-8")), encoding="utf-8")
    status, _, err = _run(capsys, "render", str(page), "--depth", "3")
    assert status == 2 and "would overwrite" in err and "-o PAGE.html" in err, err
    assert page.read_text(encoding="utf-8") == before


@pytest.mark.parametrize("command", [["summary"], ["render", "-o", "o.html"], ["diff", "other.html"]])
@pytest.mark.parametrize(("text", "piece"), [
    ("<!doctype html><p>a page of something else</p>", "not a Vista page"),
    ('<script type="application/octet-stream" data-vista="graph">AAAA</script>', "cannot be read"),
])
def test_pages_that_are_not_vista_s_are_refused(factories: ModuleType, capsys: pytest.CaptureFixture[str],
                                                command: list[str], text: str, piece: str) -> None:
    Path("other.html").write_text(text, encoding="utf-8")  # factories: the current directory is tmp_path
    status, out, err = _run(capsys, command[0], "other.html", *command[1:])
    assert status == 2 and out == "", out
    assert "could not read 'other.html' as a Vista page" in err and piece in err, err
    assert not Path("o.html").exists()
