"""The one queue that batches concurrent calls: calls of one key that arrive while another
runs wait for it, then run together. Whoever is at the head of a key's queue runs the
calls at its head that fit, in one run: no thread of its own, and an uncontended call
runs alone, at once. The model's texts (`embedding.runtime`: one run for a service's
concurrent requests costs about two thirds as much a text as one run each) and a scope's
writes (`write.group`: one transaction for its waiting writers) are batched by it."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


@dataclass(eq=False)
class _Call(Generic[T]):
    item: T
    woken: threading.Event = field(default_factory=threading.Event)
    finished: bool = False
    result: Any = None
    error: BaseException | None = None

    def finish(self, result: Any = None, error: BaseException | None = None) -> None:
        self.finished, self.result, self.error = True, result, error
        self.woken.set()


class Batches(Generic[T, R]):
    """`run` takes the items of a batch and gives each its result, in order; `fits` says
    whether an item may join the items already in a batch. When a batch of several fails,
    each of its calls runs again alone, so one caller's failure is no other's; an
    interrupt reaches every caller of the batch, and none waits forever."""

    def __init__(self, run: Callable[[list[T]], list[R]],
                 fits: Callable[[list[T], T], bool]) -> None:
        self._run, self._fits = run, fits
        self._lock = threading.Lock()
        self._queues: dict[Hashable, deque[_Call[T]]] = {}

    def __call__(self, item: T, key: Hashable = None) -> R:
        """The result of `item`, run with whatever else of `key` is waiting."""
        call = _Call(item)
        with self._lock:
            queue = self._queues.setdefault(key, deque())
            queue.append(call)
            leads = len(queue) == 1
        if not leads:
            call.woken.wait()  # run by the head of the queue, or made its head
        if not call.finished:
            self._lead(key)
        if call.error is not None:
            raise call.error
        result: R = call.result
        return result

    def waiting(self) -> int:
        """How many calls are queued or running, of every key."""
        with self._lock:
            return sum(len(q) for q in self._queues.values())

    def _lead(self, key: Hashable) -> None:
        """Run the batch at the head of `key`'s queue, then wake the next head."""
        with self._lock:
            queue = self._queues[key]
            batch = [queue[0]]
            for call in list(queue)[1:]:
                if not self._fits([c.item for c in batch], call.item):
                    break
                batch.append(call)
        try:
            self._run_batch(batch)
        except BaseException as e:  # an interrupt: every caller hears of it
            for call in batch:
                if not call.finished:
                    call.finish(error=e)
        finally:
            with self._lock:
                for _ in batch:
                    queue.popleft()
                if queue:
                    queue[0].woken.set()
                else:
                    del self._queues[key]

    def _run_batch(self, batch: list[_Call[T]]) -> None:
        if len(batch) > 1:
            try:
                results = self._run([c.item for c in batch])
            except Exception:  # someone's item failed: find whose, alone
                pass
            else:
                for call, result in zip(batch, results, strict=True):
                    call.finish(result)
                return
        for call in batch:
            try:
                [result] = self._run([call.item])
            except Exception as e:  # the caller's to raise
                call.finish(error=e)
            else:
                call.finish(result)
