"""TensorFlow 1's ``tf.train.Saver``: variables to and from V2 checkpoints TensorFlow reads.

``save(sess, "dir/model.ckpt", global_step=100)`` writes ``dir/model.ckpt-100.index`` and
``.data-00000-of-00001`` (``checkpoint/bundle.py``), ``dir/model.ckpt-100.meta`` (a
``MetaGraphDef``) and the state file ``dir/checkpoint``, deletes the checkpoints beyond
``max_to_keep`` (keeping one every ``keep_checkpoint_every_n_hours``), and returns the prefix.
``restore(sess, prefix)`` reads every tensor and checks it against its variable before it
assigns any, so a failed restore leaves the session's values as they were.

The saver reads and writes the session's variables directly instead of adding TensorFlow's
``save/SaveV2`` and ``save/RestoreV2`` nodes to the graph: a program sees the same files and the
same values, and the graph holds no ``save/`` nodes (names made later are the same either way,
as TensorFlow puts its nodes under the ``save`` scope). Hence the ``.meta`` file carries the
graph, its variables and trainable variables collections, and no ``SaverDef``; TensorFlow's
``import_meta_graph`` then makes a fresh Saver over the imported variables.

>>> import os, tempfile, ember
>>> from ember.graph.checkpoint import latest_checkpoint
>>> with ember.Graph().as_default() as g:
...     w = ember.Variable([1.0, 2.0], name="w")
...     saver = Saver(max_to_keep=2)
>>> sess = ember.Session(graph=g)
>>> _ = sess.run(w.initializer)
>>> d = tempfile.mkdtemp()
>>> os.path.basename(saver.save(sess, os.path.join(d, "model.ckpt"), global_step=7))
'model.ckpt-7'
>>> w.load([0.0, 0.0], sess)
>>> saver.restore(sess, latest_checkpoint(d))
>>> sess.run(w)
array([1., 2.], dtype=float32)
"""

from __future__ import annotations

import os
import time
from numbers import Integral

import numpy as np
from google.protobuf import text_format

from .._core import dtype as _dt
from .._core.tensor import Tensor, empty_tensor
from ..interop.numpy import from_numpy
from .checkpoint.bundle import BundleReader, atomic_write, write_bundle
from .checkpoint.state import (
    checkpoint_exists,
    meta_graph_filename,
    remove_checkpoint,
    update_checkpoint_state,
)
from .errors import InvalidArgumentError, NotFoundError
from .graph import Graph, get_default_graph
from .proto.checkpoint import MetaGraphDef, SaverDef, VariableDef
from .session import Session
from .sources import GLOBAL_VARIABLES, TRAINABLE_VARIABLES, Variable
from .tensor import GraphTensor

__all__ = ["Saver", "export_meta_graph"]

_TF_TYPE_NAME = {_dt.float32: "float", _dt.float64: "double", _dt.float16: "half"}  # DataTypeString's names
_MISSING = "a Variable name or other graph key that is missing"
_MISMATCH = "a mismatch between the current graph and the graph"


def _restore_error(kind: type, why: str, message: str) -> Exception:
    return kind(
        None,
        None,
        (
            f"Restoring from checkpoint failed. This is most likely due to {why} from the checkpoint. Please ensure that "
            f"you have not altered the graph expected based on the checkpoint. Original error:\n\n{message}"
        ),
    )


def _names_to_variables(var_list) -> dict:
    """name -> Variable, from TensorFlow's forms of ``var_list``: a dict, or a list of variables
    named by their op."""
    if isinstance(var_list, dict):
        items = list(var_list.items())
    elif isinstance(var_list, (list, tuple, set)):
        items = [(getattr(getattr(v, "op", None), "name", None), v) for v in var_list]
    else:
        raise TypeError(f"Variables to save should be passed in a dict or a list: {var_list!r}")
    out: dict = {}
    for name, var in items:
        if not isinstance(var, Variable):
            raise TypeError(f"Saver(): var_list must hold ember Variables, got {type(var).__name__}: {var!r}")
        if not isinstance(name, str) or not name:
            raise TypeError(f"Saver(): a checkpoint name must be a non-empty string, got {name!r} for {var!r}")
        if name in out:
            raise ValueError(f"At least two variables have the same name: {name}")
        out[name] = var
    return out


def _as_tensor(array: np.ndarray, dtype: _dt.DType) -> Tensor:
    """A checkpoint's array as a new ember tensor of ``dtype``."""
    if dtype is _dt.string:
        out = empty_tensor(array.shape, dtype)
        out._host_array()[...] = array
        return out
    return from_numpy(array if array.flags.c_contiguous and array.flags.writeable else array.copy())


class Saver:
    """Saves and restores variables, as ``tf.compat.v1.train.Saver`` does, in the V2 format."""

    def __init__(
        self,
        var_list=None,
        reshape: bool = False,
        sharded: bool = False,
        max_to_keep: int | None = 5,
        keep_checkpoint_every_n_hours: float = 10000.0,
        name: str | None = None,
        restore_sequentially: bool = False,
        saver_def=None,
        builder=None,
        defer_build: bool = False,
        allow_empty: bool = False,
        write_version: int = SaverDef.V2,
        pad_step_number: bool = False,
        save_relative_paths: bool = False,
        filename: str | None = None,
    ) -> None:
        if defer_build and var_list is not None:
            raise ValueError(
                "If `var_list` is provided then build cannot be deferred. Either set defer_build=False or var_list=None."
            )
        if builder is not None:
            raise ValueError("Saver(): builder is not supported; ember's saver writes the V2 format itself")
        if saver_def is not None:  # a saved configuration: its settings, ember's own I/O
            max_to_keep, sharded = saver_def.max_to_keep, saver_def.sharded
            keep_checkpoint_every_n_hours, write_version = saver_def.keep_checkpoint_every_n_hours, saver_def.version
        if write_version != SaverDef.V2:
            raise ValueError(
                f"Saver(): ember writes checkpoint format V2 ({SaverDef.V2}) only, got write_version={write_version}"
            )
        self._var_list = var_list
        self._reshape = reshape
        self._sharded = sharded  # one device: the merged sharded files are the unsharded ones
        self._max_to_keep = max_to_keep or 0
        self._keep_every_n_hours = keep_checkpoint_every_n_hours
        self._name = name
        self._restore_sequentially = restore_sequentially
        self._allow_empty = allow_empty
        self._pad_step_number = pad_step_number
        self._save_relative_paths = save_relative_paths
        self._filename = filename or "model"
        self._graph: Graph = get_default_graph()
        self._variables: dict = {}
        self._is_built = False
        self._is_empty = False
        self._last_checkpoints: list[tuple[str, float]] = []
        self._checkpoints_to_be_deleted: list[tuple[str, float]] = []
        self._next_checkpoint_time = time.time() + keep_checkpoint_every_n_hours * 3600
        if not defer_build:
            self.build()

    def build(self) -> None:
        """Fixes the variables the saver handles (all global variables when var_list was None)."""
        if self._is_built:
            return
        var_list = self._var_list if self._var_list is not None else self._graph.get_collection(GLOBAL_VARIABLES)
        self._variables = _names_to_variables(var_list)
        if not self._variables:
            if not self._allow_empty:
                raise ValueError("No variables to save")
            self._is_empty = True
        self._is_built = True
        self._next_checkpoint_time = time.time() + self._keep_every_n_hours * 3600

    # -- the saver's configuration and history ---------------------------------------------

    def as_saver_def(self) -> SaverDef:
        """The saver's configuration as a ``SaverDef`` (no tensor names: no save nodes exist)."""
        return SaverDef(
            max_to_keep=self._max_to_keep,
            sharded=self._sharded,
            keep_checkpoint_every_n_hours=self._keep_every_n_hours,
            version=SaverDef.V2,
        )

    saver_def = property(as_saver_def)

    @property
    def last_checkpoints(self) -> list[str]:
        """The prefixes of the checkpoints not yet deleted, oldest first."""
        return [path for path, _ in self._last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time) -> None:
        """Replaces the history with (prefix, time written) pairs, oldest first."""
        if not isinstance(last_checkpoints_with_time, list):
            raise TypeError(f"last_checkpoints_with_time must be a list, got {type(last_checkpoints_with_time).__name__}")
        self._last_checkpoints = [(str(p), float(t)) for p, t in last_checkpoints_with_time]

    def set_last_checkpoints(self, last_checkpoints) -> None:
        """Replaces the history with these prefixes (as if written now)."""
        if not isinstance(last_checkpoints, list):
            raise TypeError(f"last_checkpoints must be a list, got {type(last_checkpoints).__name__}")
        self._last_checkpoints = [(str(p), float("inf")) for p in last_checkpoints]

    def recover_last_checkpoints(self, checkpoint_paths) -> None:
        """Takes up the history of an earlier saver: the prefixes that still exist, with their
        files' modification times (e.g. ``get_checkpoint_state(d).all_model_checkpoint_paths``)."""
        kept = []
        for path in checkpoint_paths:
            if checkpoint_exists(path):
                kept.append((path, os.stat(f"{path}.index").st_mtime if os.path.exists(f"{path}.index") else time.time()))
        self._last_checkpoints = sorted(kept, key=lambda item: item[1])

    def _record_last_checkpoint(self, path: str) -> None:
        if not self._max_to_keep:
            return
        self._last_checkpoints = [item for item in self._last_checkpoints if item[0] != path]
        self._last_checkpoints.append((path, time.time()))
        if len(self._last_checkpoints) > self._max_to_keep:
            self._checkpoints_to_be_deleted.append(self._last_checkpoints.pop(0))

    def _maybe_delete_old_checkpoints(self, meta_graph_suffix: str) -> None:
        if not self._checkpoints_to_be_deleted:
            return
        path, written = self._checkpoints_to_be_deleted.pop(0)
        if written > self._next_checkpoint_time:  # the one to keep this period
            self._next_checkpoint_time += self._keep_every_n_hours * 3600
            return
        remove_checkpoint(path, SaverDef.V2, meta_graph_suffix)

    def _check_session(self, sess) -> None:
        if not isinstance(sess, Session):
            raise TypeError(f"'sess' must be a Session; {sess}")
        for var in self._variables.values():
            if sess.graph is not None and var.graph is not sess.graph:
                raise ValueError(
                    f"The variable {var.op.name} is not an element of the session's graph: run the saver with a session of its graph"
                )

    # -- saving -----------------------------------------------------------------------------

    def save(
        self,
        sess,
        save_path,
        global_step=None,
        latest_filename: str | None = None,
        meta_graph_suffix: str = "meta",
        write_meta_graph: bool = True,
        write_state: bool = True,
        strip_default_attrs: bool = False,
        save_debug_info: bool = False,
    ) -> str | None:
        """Writes the variables' values in ``sess`` to the checkpoint ``save_path`` (with
        ``-<global_step>`` appended when given) and returns its prefix (None when the saver has
        no variables and allow_empty was set)."""
        if not self._is_built:
            raise RuntimeError("`build()` should be called before save if defer_build==True")
        latest_filename = latest_filename or "checkpoint"
        if os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components")
        self._check_session(sess)
        save_path = os.fspath(save_path)
        if global_step is not None:
            if isinstance(global_step, GraphTensor):
                global_step = sess.run(global_step)
            elif isinstance(global_step, Tensor) and global_step.numel() == 1:
                global_step = global_step.item()
            if not isinstance(global_step, (Integral, np.integer)):
                raise TypeError(f"Saver.save(): global_step must be an integer or an integer tensor, got {global_step!r}")
            step = int(global_step)
            checkpoint_file = f"{save_path}-{step:08d}" if self._pad_step_number else f"{save_path}-{step}"
        else:
            checkpoint_file = save_path
            if os.path.basename(save_path) == latest_filename and not self._sharded:
                raise ValueError(f"'latest_filename' collides with 'save_path': '{latest_filename}' and '{save_path}'")
        save_dir = os.path.dirname(save_path)
        if self._is_empty:
            model_checkpoint_path = None
        else:
            if save_dir and not os.path.isdir(save_dir):
                try:
                    os.mkdir(save_dir)  # TensorFlow's writer makes the last directory, not its parents
                except FileNotFoundError:
                    raise ValueError(f"Parent directory of {save_path} doesn't exist, can't save.") from None
            write_bundle(checkpoint_file, {name: sess.read_variable(var) for name, var in self._variables.items()})
            model_checkpoint_path = checkpoint_file
            if write_state:
                self._record_last_checkpoint(model_checkpoint_path)
                update_checkpoint_state(
                    save_dir or os.curdir,
                    model_checkpoint_path,
                    self.last_checkpoints,
                    latest_filename,
                    save_relative_paths=self._save_relative_paths,
                )
                self._maybe_delete_old_checkpoints(meta_graph_suffix)
        if write_meta_graph:
            self.export_meta_graph(meta_graph_filename(checkpoint_file, meta_graph_suffix), graph=sess.graph or self._graph)
        return model_checkpoint_path

    def export_meta_graph(
        self,
        filename=None,
        collection_list=None,
        as_text: bool = False,
        export_scope=None,
        clear_devices: bool = False,
        clear_extraneous_savers: bool = False,
        strip_default_attrs: bool = False,
        save_debug_info: bool = False,
        graph: Graph | None = None,
    ):
        """The ``MetaGraphDef`` of the saver's graph; written to ``filename`` when given."""
        return export_meta_graph(
            filename,
            collection_list=collection_list,
            as_text=as_text,
            graph=graph or self._graph,
            export_scope=export_scope,
            clear_devices=clear_devices,
        )

    # -- restoring --------------------------------------------------------------------------

    def restore(self, sess, save_path) -> None:
        """Assigns every variable of the saver its value in the checkpoint ``save_path``.

        NotFoundError when a variable's name is not in the checkpoint, InvalidArgumentError when
        a dtype or shape differs (``reshape=True`` accepts another shape of as many elements);
        either way no variable has been assigned.
        """
        if self._is_empty:
            return
        self._check_session(sess)
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        prefix = os.fspath(save_path)
        if not checkpoint_exists(prefix):
            raise ValueError(f"The passed save_path is not a valid checkpoint: {prefix}")
        reader = BundleReader(prefix)
        values = []
        for name, var in self._variables.items():
            if not reader.has_tensor(name):
                raise _restore_error(NotFoundError, _MISSING, f"Key {name} not found in checkpoint")
            stored = reader.dtype(name)
            if stored is not var.dtype:
                raise _restore_error(
                    InvalidArgumentError,
                    _MISMATCH,
                    (
                        f"tensor_name = {name}; expected dtype {_TF_TYPE_NAME.get(var.dtype, var.dtype.name)} does not equal "
                        f"original dtype {_TF_TYPE_NAME.get(stored, stored.name)}"
                    ),
                )
            array = reader.get_tensor(name)
            values.append((var, _as_tensor(self._fit(name, var, array), stored)))
        for var, value in values:
            var.load(value, sess)

    def _fit(self, name: str, var: Variable, array: np.ndarray) -> np.ndarray:
        static = var.shape
        if static.rank is None or static.is_compatible_with(array.shape):
            return array
        wanted = static.as_list()
        if self._reshape and static.is_fully_defined() and int(np.prod(wanted, dtype=np.int64)) == array.size:
            return array.reshape(wanted)
        if self._reshape:
            raise _restore_error(
                InvalidArgumentError,
                _MISMATCH,
                (
                    f"Input to reshape is a tensor with {array.size} values, but the requested shape has "
                    f"{int(np.prod([d or 0 for d in wanted], dtype=np.int64))} (restoring {name})"
                ),
            )
        lhs = "[" + ",".join("?" if d is None else str(d) for d in wanted) + "]"
        raise _restore_error(
            InvalidArgumentError,
            _MISMATCH,
            (
                f"Assign requires shapes of both tensors to match. lhs shape= {lhs} rhs shape= [{','.join(map(str, array.shape))}] "
                f"(restoring {name})"
            ),
        )


# -- the meta graph ------------------------------------------------------------------------------


def _variable_def(var: Variable) -> bytes:
    return VariableDef(
        variable_name=var.name,
        initializer_name=var.initializer.name,
        snapshot_name=var.value().name,
        initial_value_name=var.initial_value.name,
        trainable=var.trainable,
    ).SerializeToString()


def export_meta_graph(
    filename=None,
    meta_info_def=None,
    graph_def=None,
    saver_def=None,
    collection_list=None,
    as_text: bool = False,
    graph: Graph | None = None,
    export_scope: str | None = None,
    clear_devices: bool = False,
    clear_extraneous_savers: bool = False,
    strip_default_attrs: bool = False,
    save_debug_info: bool = False,
) -> MetaGraphDef:
    """The ``MetaGraphDef`` of ``graph`` (default: the default graph), as
    ``tf.compat.v1.train.export_meta_graph``: its ``GraphDef`` with shapes (or ``graph_def``) and
    its variables collections as ``VariableDef`` lists (those in ``collection_list`` when given);
    written to ``filename`` (binary, or text format with ``as_text``) when given."""
    if export_scope:
        raise ValueError(f"export_meta_graph(): export_scope is not supported (got {export_scope!r}); export the whole graph")
    graph = graph or get_default_graph()
    meta = MetaGraphDef()
    meta.meta_info_def.SetInParent()
    if meta_info_def is not None:
        meta.meta_info_def.MergeFrom(meta_info_def)
    meta.graph_def.CopyFrom(graph_def if graph_def is not None else graph.as_graph_def(add_shapes=True))
    if saver_def is not None:
        meta.saver_def.CopyFrom(saver_def)
    if clear_devices:
        for node in meta.graph_def.node:
            node.device = ""
    for key in (GLOBAL_VARIABLES, TRAINABLE_VARIABLES):
        variables = [v for v in graph.get_collection(key) if isinstance(v, Variable)]
        if variables and (collection_list is None or key in collection_list):
            meta.collection_def[key].bytes_list.value.extend(_variable_def(v) for v in variables)
    if filename is not None:
        data = text_format.MessageToString(meta).encode() if as_text else meta.SerializeToString()
        atomic_write(os.fspath(filename), [data])
    return meta
