"""What the side-by-side commit comparisons share: each commit's sources in a temporary git
worktree, run from there without installing anything, and a report printed and kept."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Stands for this checkout as it is, uncommitted changes included, in place of a commit.
WORKTREE = "WORKTREE"


@contextmanager
def commit_trees(revs: Sequence[str], tmp: Path) -> Iterator[dict[str, Path]]:
    """A source tree per revision (``WORKTREE`` is this checkout), removed again on exit."""
    trees: dict[str, Path] = {}
    added: list[Path] = []
    try:
        for rev in revs:
            if rev == WORKTREE:
                trees[rev] = ROOT
                continue
            trees[rev] = tmp / rev.replace("/", "_")
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(trees[rev]), rev],
                           check=True)
            added.append(trees[rev])
        yield trees
    finally:
        for tree in added:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)


def run_with_sources(tree: Path, code: str, *args: str) -> str:
    """Run ``code`` in a fresh Python whose vista packages are ``tree``'s sources; its stdout."""
    python_path = ":".join(str(src) for src in sorted((tree / "packages").glob("*/src")))
    done = subprocess.run([sys.executable, "-c", code, *args], env={"PYTHONPATH": python_path, "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the child run with {tree}'s sources failed ({done.returncode}):\n{done.stderr}")
    return done.stdout


def publish(report: str, out: Path | None) -> None:
    """Print the report and, given a file, append it there."""
    print(report)
    if out:
        with out.open("a", encoding="utf-8") as handle:
            handle.write(report + "\n")
