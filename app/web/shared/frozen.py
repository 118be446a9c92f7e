"""Data that cannot change once made, so it can key what was rendered from it.

`freeze(value)` copies dicts into `Frozen` (a dict that refuses changes and hashes by its items)
and lists and tuples into `FrozenTuple`, all the way down. Templates read a `Frozen` as they read
a dict. `is_frozen(value)` tells such data (and named tuples of plain fields, once `register`ed)
at a glance, without looking inside.
"""

from __future__ import annotations

from typing import Any, NoReturn


class Frozen(dict[str, Any]):
    """A dict that is never changed after it is made (its values frozen too): hashable."""

    __slots__ = ("_hash",)

    def __hash__(self) -> int:  # type: ignore[override]
        try:
            return self._hash
        except AttributeError:
            self._hash: int = hash(frozenset(self.items()))
            return self._hash

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("a Frozen dict does not change")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse


class FrozenTuple(tuple[Any, ...]):
    """A tuple of frozen values (made by `freeze`)."""

    __slots__ = ()


_FROZEN: tuple[type, ...] = (str, int, float, bool, type(None), Frozen, FrozenTuple, frozenset)


def register(*types: type) -> None:
    """Named tuples whose fields are all plain values (numbers, strings, tuples of them): frozen as they are."""
    global _FROZEN
    _FROZEN = (*_FROZEN, *types)


def is_frozen(value: Any) -> bool:
    return isinstance(value, _FROZEN)


def freeze(value: Any) -> Any:
    """`value` with every dict made `Frozen` and every list or tuple a `FrozenTuple`, all the way down."""
    if isinstance(value, _FROZEN):
        return value
    if isinstance(value, dict):
        frozen = Frozen()
        dict.update(frozen, ((k, freeze(v)) for k, v in value.items()))
        return frozen
    if isinstance(value, (list, tuple)):
        return FrozenTuple(freeze(v) for v in value)
    if isinstance(value, set):
        return frozenset(value)
    return value
