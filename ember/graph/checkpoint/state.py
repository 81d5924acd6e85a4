"""The ``checkpoint`` file beside a model's checkpoints, and finding checkpoints by prefix.

The file is a ``CheckpointState`` in protobuf's text format: the latest checkpoint's prefix
(``model_checkpoint_path``) and the prefixes still kept, oldest first
(``all_model_checkpoint_paths``). Relative paths are relative to the file's directory. It is
written to a temporary file and renamed, so a reader never sees half of one.

>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> update_checkpoint_state(d, os.path.join(d, "model.ckpt-2"), [os.path.join(d, "model.ckpt-1")])
>>> state = get_checkpoint_state(d)
>>> [os.path.basename(p) for p in state.all_model_checkpoint_paths]
['model.ckpt-1', 'model.ckpt-2']
>>> latest_checkpoint(d) is None  # the state names prefixes whose files do not exist
True
"""

from __future__ import annotations

import contextlib
import glob
import os
import re

from google.protobuf import text_format

from ..proto.checkpoint import CheckpointState
from .bundle import atomic_write, index_filename

__all__ = [
    "checkpoint_exists",
    "get_checkpoint_mtimes",
    "get_checkpoint_state",
    "latest_checkpoint",
    "meta_graph_filename",
    "remove_checkpoint",
    "update_checkpoint_state",
]

STATE_FILENAME = "checkpoint"


def _state_path(checkpoint_dir, latest_filename: str | None) -> str:
    return os.path.join(os.fspath(checkpoint_dir), latest_filename or STATE_FILENAME)


def update_checkpoint_state(
    save_dir,
    model_checkpoint_path: str,
    all_model_checkpoint_paths=None,
    latest_filename: str | None = None,
    all_model_checkpoint_timestamps=None,
    last_preserved_timestamp: float | None = None,
    save_relative_paths: bool = False,
) -> None:
    """Writes the state file of ``save_dir``: ``model_checkpoint_path`` is the latest, and ends
    ``all_model_checkpoint_paths`` (appended if it is not already last). With
    ``save_relative_paths`` absolute paths are written relative to ``save_dir``; with a relative
    ``save_dir`` relative paths are made relative to it."""
    save_dir = os.fspath(save_dir)
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)
    timestamps = list(all_model_checkpoint_timestamps or [])
    if timestamps and len(timestamps) != len(paths):
        raise ValueError(
            f"Checkpoints and timestamps must have the same length: {len(paths)} paths, {len(timestamps)} timestamps"
        )
    if save_relative_paths:
        model_checkpoint_path = (
            os.path.relpath(model_checkpoint_path, save_dir) if os.path.isabs(model_checkpoint_path) else model_checkpoint_path
        )
        paths = [os.path.relpath(p, save_dir) if os.path.isabs(p) else p for p in paths]
    if not os.path.isabs(save_dir):
        model_checkpoint_path = (
            model_checkpoint_path if os.path.isabs(model_checkpoint_path) else os.path.relpath(model_checkpoint_path, save_dir)
        )
        paths = [p if os.path.isabs(p) else os.path.relpath(p, save_dir) for p in paths]
    state = CheckpointState(
        model_checkpoint_path=model_checkpoint_path, all_model_checkpoint_paths=paths, all_model_checkpoint_timestamps=timestamps
    )
    if last_preserved_timestamp is not None:
        state.last_preserved_timestamp = last_preserved_timestamp
    path = _state_path(save_dir, latest_filename)
    if path == state.model_checkpoint_path:
        raise RuntimeError(
            f"Save path '{model_checkpoint_path}' conflicts with path used for checkpoint state.  Please use a different save path."
        )
    atomic_write(path, [text_format.MessageToString(state).encode()])


def get_checkpoint_state(checkpoint_dir, latest_filename: str | None = None) -> CheckpointState | None:
    """The ``CheckpointState`` of ``checkpoint_dir`` with its paths joined to the directory, or
    None when there is no state file or it does not parse; ValueError if it names no checkpoint."""
    checkpoint_dir = os.fspath(checkpoint_dir)
    path = _state_path(checkpoint_dir, latest_filename)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    state = CheckpointState()
    try:
        text_format.Merge(text, state)
    except text_format.ParseError:
        return None
    if not state.model_checkpoint_path:
        raise ValueError(f"Invalid checkpoint state loaded from {checkpoint_dir}")
    if not os.path.isabs(state.model_checkpoint_path):
        state.model_checkpoint_path = os.path.join(checkpoint_dir, state.model_checkpoint_path)
    for i, p in enumerate(state.all_model_checkpoint_paths):
        if not os.path.isabs(p):
            state.all_model_checkpoint_paths[i] = os.path.join(checkpoint_dir, p)
    return state


def checkpoint_exists(checkpoint_prefix) -> bool:
    """Whether a checkpoint with this prefix (or glob pattern) exists: its ``.index`` file, or
    a file at the prefix itself (TensorFlow's older V1 format)."""
    prefix = os.fspath(checkpoint_prefix)
    return bool(glob.glob(index_filename(prefix)) or glob.glob(prefix))


def latest_checkpoint(checkpoint_dir, latest_filename: str | None = None) -> str | None:
    """The prefix of the latest checkpoint the state file of ``checkpoint_dir`` names, if its
    files exist; else None."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state is not None and state.model_checkpoint_path and checkpoint_exists(state.model_checkpoint_path):
        return state.model_checkpoint_path
    return None


def get_checkpoint_mtimes(checkpoint_prefixes) -> list[float]:
    """The modification time of each existing checkpoint's index file (missing ones are skipped)."""
    times = []
    for prefix in checkpoint_prefixes:
        for path in glob.glob(index_filename(os.fspath(prefix))) or glob.glob(os.fspath(prefix)):
            times.append(os.stat(path).st_mtime)
            break
    return times


def meta_graph_filename(checkpoint_filename: str, meta_graph_suffix: str = "meta") -> str:
    """``model.ckpt-100`` -> ``model.ckpt-100.meta`` (a sharded name's ``-00000-of-00002`` dropped)."""
    base = re.sub(r"-[\d\?]+-of-\d+$", "", os.fspath(checkpoint_filename))
    return f"{base}.{meta_graph_suffix}"


def remove_checkpoint(checkpoint_prefix, checkpoint_format_version: int = 2, meta_graph_suffix: str = "meta") -> None:
    """Deletes a checkpoint's files: its index, its data files and its meta graph."""
    if checkpoint_format_version != 2:
        raise ValueError(f"remove_checkpoint(): ember writes only checkpoint format V2 (2), got {checkpoint_format_version}")
    prefix = os.fspath(checkpoint_prefix)
    paths = [
        index_filename(prefix),
        *glob.glob(glob.escape(prefix) + ".data-?????-of-?????"),
        meta_graph_filename(prefix, meta_graph_suffix),
    ]
    for path in paths:
        with contextlib.suppress(FileNotFoundError):
            os.remove(path)
