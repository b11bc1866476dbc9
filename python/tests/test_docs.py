"""The examples in the package's docstrings run (doctest)."""

import doctest

import cctape
import cctape._api


def test_docstring_examples():
    # The package's docstring, and those of the functions and classes it
    # re-exports from its Python side.
    tried = 0
    for mod in (cctape, cctape._api):
        failed, n = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        assert failed == 0
        tried += n
    assert tried >= 8
