"""Instance normalisation: ``InstanceNorm1d/2d/3d`` (no affine parameters nor running stats by default).

>>> import ember.nn as nn
>>> nn.InstanceNorm2d(3)
InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)
>>> nn.InstanceNorm1d(2)(ember.tensor([[1.0, 3.0], [2.0, 2.0]])).tolist()
[[-0.9999949932098389, 0.9999949932098389], [0.0, 0.0]]
"""

from __future__ import annotations

import warnings

from ..._core.tensor import Tensor
from .. import _instance
from .batchnorm import _NormBase


class _InstanceNorm(_NormBase):
    _spatial_dims = 0  # dims after the channel one

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device=None, dtype=None, *, bias: bool = True) -> None:  # fmt: skip
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _check_input_dim(self, input: Tensor) -> None:
        unbatched = self._spatial_dims + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise ValueError(f"expected {unbatched}D or {unbatched + 1}D input (got {input.dim()}D input)")

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ) -> None:
        # checkpoints from before running stats were off by default carry them: drop them with a message
        if local_metadata.get("version") is None and not self.track_running_stats:
            keys = [prefix + name for name in ("running_mean", "running_var") if prefix + name in state_dict]
            if keys:
                names = " and ".join(f'"{k}"' for k in keys)
                error_msgs.append(
                    f"Unexpected running stats buffer(s) {names} for {type(self).__name__} with "
                    f"track_running_stats=False. If the running stats are needed, set track_running_stats=True."
                )
                for key in keys:
                    state_dict.pop(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        feature_dim = input.dim() - self._spatial_dims - 1
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features ({self.num_features}), "
                    f"but got: {input.shape[feature_dim]}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You can silence this warning by "
                "not passing in num_features, which is not used because affine=False",
                stacklevel=2,
            )
        unbatched = input.dim() == self._spatial_dims + 1
        batch = input.unsqueeze(0) if unbatched else input
        out = _instance.instance_norm(
            batch, self.running_mean, self.running_var, self.weight, self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0, self.eps,
        )  # fmt: skip
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Over (N, C, L) or unbatched (C, L) inputs."""

    _spatial_dims = 1


class InstanceNorm2d(_InstanceNorm):
    """Over (N, C, H, W) or unbatched (C, H, W) inputs."""

    _spatial_dims = 2


class InstanceNorm3d(_InstanceNorm):
    """Over (N, C, D, H, W) or unbatched (C, D, H, W) inputs."""

    _spatial_dims = 3
