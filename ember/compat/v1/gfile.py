"""``tf.gfile``: TensorFlow 1's file API names over graph mode's ``ember.graph.gfile``
(``tf.io.gfile`` is that module's lowercase names)."""

# ruff: noqa: F401 - this module is a namespace: every import is a public name of it

from __future__ import annotations

from ...graph.gfile import (
    Copy,
    DeleteRecursively,
    Exists,
    FastGFile,
    GFile,
    Glob,
    IsDirectory,
    ListDirectory,
    MakeDirs,
    MkDir,
    Open,
    Remove,
    Rename,
    Stat,
    Walk,
)
