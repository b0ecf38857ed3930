"""Operations written once for both clients, as generators of calls.

An operation yields what each call it makes returned — the result itself on
:class:`larder.Larder`, an awaitable on :class:`larder.aio.AsyncLarder` —
and is sent back the call's result. :func:`run` drives one where calls
return their results, :func:`run_async` where they are awaited; so an
operation that reads an answer before its next call (a view's ``pop``,
answering a server request) is written once for both. A leaf: it imports
nothing from the package.
"""

from __future__ import annotations

import inspect
from typing import Any, Generator, TypeVar

__all__ = ["Steps", "run", "run_async"]

R = TypeVar("R")

#: An operation: yields each call's return value, is sent the call's result,
#: returns ``R``.
Steps = Generator[Any, Any, R]


def run(steps: Steps[R]) -> R:
    """Runs an operation whose calls return their results: each goes straight
    back in (a call's error is raised where it was made, inside the
    operation)."""
    try:
        answer = next(steps)
        while True:
            answer = steps.send(answer)
    except StopIteration as done:
        result: R = done.value
        return result


async def run_async(steps: Steps[R]) -> R:
    """Runs an operation whose calls may be awaited: what a call returned is
    awaited when it is awaitable and its result sent back in, and its error
    thrown in where the call was made."""
    try:
        call = next(steps)
        while True:
            try:
                answer = await call if inspect.isawaitable(call) else call
            except Exception as e:
                call = steps.throw(e)
            else:
                call = steps.send(answer)
    except StopIteration as done:
        result: R = done.value
        return result
