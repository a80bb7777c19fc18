"""What a process keeps has one owner (issue 59): a connection's caches live in its
Store's `Kept` (graph/kept.py), and the only module-level state that changes at run time
is the process-wide one named here, each for a reason. Each kind kept is safe across
threads: driven from 8 threads with a small size, none raises or breaks its bound."""

from __future__ import annotations

import ast
import random
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

from graphmem.graph.kept import Kept
from graphmem.graph.scope_indexes import Flagged
from graphmem.read.candidates import DepthCache
from graphmem.read.keywords import WordCounts
from graphmem.write.group import Groups
from graphmem.write.links import SessionVectors

PACKAGE = Path(__file__).resolve().parents[2] / "graphmem"
#: Calls that change the object they are called on.
MUTATORS = frozenset({"add", "append", "extend", "update", "pop", "popitem", "clear",
                      "setdefault", "discard", "remove", "insert", "move_to_end", "set",
                      "difference_update", "intersection_update", "appendleft"})
#: Module-level state a process may change, and why it is the process's, not a
#: connection's.
PROCESS_WIDE = {
    "base/registry.py:_KEPT": "what a process makes once and shares: its loaded models "
                              "and the warm process's connections",
    "base/registry.py:_LOCKS": "the lock of each key of the registry",
    "graph/store.py:_REACHED": "the servers this process reached: one it lost is waited for",
    "base/settings.py:_ENVIRON": "the environment load_settings reads, while it reads it "
                                 "(per call)",
    "cli/output.py:_CALL": "the call a command answers: its environment and streams (per "
                           "call)",
    "cli/warm_stores.py:_SHARING": "whether the call is one the warm process answers",
    "graph/trips.py:_LISTENING": "a benchmark listening to every thread's round trips "
                                 "(none unless `bench verbs` runs)",
}


def _changed_module_names(path: Path) -> set[str]:
    """The module-level names of `path` that its code changes at run time: assigned
    under `global`, assigned by item, deleted by item, or called a mutating method."""
    tree = ast.parse(path.read_text())
    names = {t.id for node in tree.body if isinstance(node, ast.Assign | ast.AnnAssign)
             for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
             if isinstance(t, ast.Name)}
    changed = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            changed |= set(node.names)
        targets = (node.targets if isinstance(node, ast.Assign | ast.Delete)
                   else [node.target] if isinstance(node, ast.AugAssign) else [])
        for t in targets:
            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                changed.add(t.value.id)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in MUTATORS and isinstance(node.func.value, ast.Name)):
            changed.add(node.func.value.id)
    return changed & names


def test_only_process_wide_state_changes_at_module_level() -> None:
    found = {f"{path.relative_to(PACKAGE).as_posix()}:{name}"
             for path in sorted(PACKAGE.rglob("*.py"))
             for name in _changed_module_names(path)}
    assert found == set(PROCESS_WIDE)


#: Private-looking names that are public API (a named tuple's), and the one private
#: member of a library graphmem reaches, with why.
NOT_PRIVATE = {"_replace", "_asdict", "_fields"}
REACHED = {"mcp/__init__.py server._tool_manager":
           "the MCP SDK has no public hook to make a tool refuse unknown arguments"}


def test_no_module_reads_another_modules_private_members() -> None:
    # `x._name` where x is not self or cls, and _name is not a dunder: another object's
    # private member, which couples a module to another's insides.
    reached = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                    and not node.attr.startswith("__") and node.attr not in NOT_PRIVATE
                    and not (isinstance(node.value, ast.Name)
                             and node.value.id in ("self", "cls"))):
                reached.add(f"{path.relative_to(PACKAGE).as_posix()} {ast.unparse(node)}")
    assert reached == set(REACHED)


def _hammer(work: Callable[[random.Random], None]) -> None:
    errors: list[BaseException] = []

    def loop(seed: int) -> None:
        rng = random.Random(seed)
        try:
            for _ in range(2000):
                work(rng)
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=loop, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_every_kind_kept_holds_up_under_eight_threads() -> None:
    kept = Kept()
    scopes = ["a", "b", "c"]
    depths = DepthCache(size=4)
    windows = SessionVectors(sessions=4)
    words = WordCounts(size=4)
    vector = np.ones(3, dtype=np.float32)

    def work(rng: random.Random) -> None:
        scope = rng.choice(scopes)
        key = (scope, rng.randrange(10))
        depths.put(key, rng.randrange(1, 100), 1)
        depths.get(key, 10)
        windows.keep((scope, str(rng.randrange(10))), {"m|h": vector})
        windows.known((scope, str(rng.randrange(10))))
        words.of(f"note {rng.randrange(10)} about {scope}")
        kept.get(Flagged).add([{"scope": scope, "text": True, "vector": False}], vector=False)
        kept.get(Flagged).take([scope])
        kept.get(Groups)
        if rng.random() < 0.05:
            for kind in (depths, windows, words):
                kind.forget([scope] if rng.random() < 0.5 else None)
            kept.forget([scope])

    _hammer(work)
    assert len(depths.items()) <= 4 and len(words) <= 4


def test_a_forget_reaches_every_kind_kept_for_that_scope_only() -> None:
    kept = Kept()
    kept.get(DepthCache).put(("a", ()), 40, 1)
    kept.get(DepthCache).put(("b", ()), 40, 1)
    kept.get(SessionVectors).keep(("a", "s"), {"m|h": np.ones(3)})
    kept.get(SessionVectors).keep(("b", "s"), {"m|h": np.ones(3)})
    kept.get(WordCounts).of("the harbour ferry")
    kept.forget(["a"])
    assert [k for k, _ in kept.get(DepthCache).items()] == [("b", ())]
    assert not kept.get(SessionVectors).known(("a", "s"))
    assert kept.get(SessionVectors).known(("b", "s"))
    assert len(kept.get(WordCounts)) == 0  # kept by text, not scope: all go


class _Told:
    """A kind kept that notes what it was told to forget."""

    def __init__(self) -> None:
        self.told: list[list[str] | None] = []

    def forget(self, scopes: Sequence[str] | None) -> None:
        self.told.append(None if scopes is None else list(scopes))


def test_every_edit_that_takes_text_away_declares_the_scopes_it_changes() -> None:
    # Not called by hand at each site: the edit declares it (kept.changes), and what the
    # store keeps of its scopes goes once it returns, or fails.
    from types import SimpleNamespace

    from graphmem.graph.kept import changes
    from graphmem.lifecycle import edits, maintenance, reembed

    for edit in (edits.update, edits.forget, edits.drop, maintenance.sweep, reembed.reembed):
        assert hasattr(edit, "__wrapped__"), edit.__name__
    store = SimpleNamespace(kept=Kept())
    told = store.kept.get(_Told)

    @changes()
    def edit(store: object, *, scope: str | None, fail: bool = False) -> str:
        if fail:
            raise ValueError("failed")
        return "done"

    @changes("only")
    def several(store: object, only: Sequence[str] | None = None) -> None:
        pass

    assert edit(store, scope="a") == "done"
    with pytest.raises(ValueError):
        edit(store, scope="b", fail=True)
    edit(store, scope=None)
    several(store, ["c", "d"])
    assert told.told == [["a"], ["b"], None, ["c", "d"]]
