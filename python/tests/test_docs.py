"""The examples in the package's docstrings run (doctest)."""

import doctest

import cctape


def test_docstring_examples():
    failed, tried = doctest.testmod(cctape, optionflags=doctest.ELLIPSIS)
    assert tried >= 5 and failed == 0
