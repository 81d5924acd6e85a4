
"""Batch normalisation with running statistics.

>>> import ember.nn as nn
>>> bn = nn.BatchNorm1d(3)
>>> bn
BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
>>> _ = bn(ember.randn(8, 3))
>>> bn.num_batches_tracked.item()
1
"""

from __future__ import annotations

from ..._core import dtype as dtypes
from ..._core.tensor import Tensor, tensor
from ...ops import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


class _NormBase(Module):
    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *, bias: bool = True) -> None:  # fmt: skip
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(F.empty((num_features,), device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(F.empty((num_features,), device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", F.zeros((num_features,), device=device, dtype=dtype))
            self.register_buffer("running_var", F.ones((num_features,), device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=dtypes.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
            f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}"
        )

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs) -> None:
        # checkpoints from before num_batches_tracked existed: start it at 0 rather than report it missing
        key = prefix + "num_batches_tracked"
        if self.track_running_stats and key not in state_dict:
            state_dict[key] = tensor(0, dtype=dtypes.int64)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)


class _BatchNorm(_NormBase):
    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked.item())
        # eval mode uses the running stats, unless there are none (then batch stats, as in training)
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_running = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if use_running else None,
            self.running_var if use_running else None,
            self.weight,
            self.bias,
            bn_training,
            factor,
            self.eps,
        )


class BatchNorm1d(_BatchNorm):
    """Over (N, C) or (N, C, L) inputs."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Over (N, C, H, W) inputs."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")
