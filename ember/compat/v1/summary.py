"""``tf.summary`` as TensorFlow 1 has it: the summary ops, ``FileWriter`` and the event messages.

The ops and the writer are graph mode's (``ember.graph.summary``); this module holds exactly the
names ``tf.compat.v1.summary`` offers that ember has.
"""

# ruff: noqa: F401 - this module is a namespace: every import is a public name of it

from __future__ import annotations

from ...graph.summary import (
    Event,
    FileWriter,
    FileWriterCache,
    SessionLog,
    Summary,
    TaggedRunMetadata,
    audio,
    histogram,
    image,
    merge,
    merge_all,
    scalar,
    tensor_summary,
    text,
)
