"""TensorFlow's checkpoints: the V2 format and the files around it.

Beside ``crc32c.py`` (the checksums) and ``errors.py`` (TensorFlow's error classes): ``table.py``
is the sorted table of the ``.index`` file; ``bundle.py`` writes and reads a checkpoint's index
and data file; ``state.py`` is the ``checkpoint`` state file and finding checkpoints by prefix;
``reader.py`` is TensorFlow's ``NewCheckpointReader``, ``list_variables`` and ``load_variable``.
``ember/graph/saver.py`` builds ``Saver`` on them.
"""

from .bundle import BundleReader, write_bundle
from .reader import CheckpointReader, NewCheckpointReader, list_variables, load_checkpoint, load_variable
from .state import (
    checkpoint_exists,
    get_checkpoint_mtimes,
    get_checkpoint_state,
    latest_checkpoint,
    meta_graph_filename,
    remove_checkpoint,
    update_checkpoint_state,
)
from .table import TableError

__all__ = [
    "BundleReader",
    "CheckpointReader",
    "NewCheckpointReader",
    "TableError",
    "checkpoint_exists",
    "get_checkpoint_mtimes",
    "get_checkpoint_state",
    "latest_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
    "meta_graph_filename",
    "remove_checkpoint",
    "update_checkpoint_state",
    "write_bundle",
]
