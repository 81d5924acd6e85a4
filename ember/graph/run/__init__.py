"""Executors: how a graph's plan runs.

- ``plan.py``: the general executor. A ``Plan`` prunes the graph to what the fetches need,
  orders it, gives each tensor a slot, and runs each node's primitive on the eager interpreter
  (graph-only nodes such as variables and assignments are handled there).
- ``static.py``: ``ArrayPlan``, a plan whose shapes are all known, run as one generated function
  of kernel calls on preplanned arrays.
- ``specialize.py``: a Session's plan specialised to its fed shapes, run as an ``ArrayPlan``.
- ``row_split.py``: an ``ArrayPlan`` that computes its results row by row runs in blocks of rows.
- ``fused.py``: ``FusedProgram``, a chain of elementwise kernels run as one, chunk by chunk.

Executors depend on the IR, never on the passes or the Session that use them.
"""
