"""CUDA's matmul flags: stored for programs that set them; ember has no CUDA backend.

>>> import ember.backends.cuda
>>> ember.backends.cuda.matmul.allow_tf32
False
"""


class _MatmulFlags:
    """``torch.backends.cuda.matmul``: TF32 and reduced-precision switches."""

    def __init__(self) -> None:
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True


matmul = _MatmulFlags()


def is_built() -> bool:
    return False
