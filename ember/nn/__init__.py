"""``ember.nn``: PyTorch's ``torch.nn`` surface over ember's ops (forward; backward once autograd lands).

>>> import ember.nn as nn
>>> class TinyModel(nn.Module):
...     def __init__(self):
...         super().__init__()
...         self.linear1 = nn.Linear(100, 200)
...         self.activation = nn.ReLU()
...         self.linear2 = nn.Linear(200, 10)
...         self.softmax = nn.Softmax()
...     def forward(self, x):
...         return self.softmax(self.linear2(self.activation(self.linear1(x))))
>>> TinyModel()
TinyModel(
  (linear1): Linear(in_features=100, out_features=200, bias=True)
  (activation): ReLU()
  (linear2): Linear(in_features=200, out_features=10, bias=True)
  (softmax): Softmax(dim=None)
)
>>> TinyModel()(ember.rand(1, 100)).shape
ember.Size([1, 10])
"""

from . import functional, init, parallel, utils
from .modules import (
    CELU,
    ELU,
    GELU,
    GLU,
    GRU,
    LSTM,
    RNN,
    SELU,
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveAvgPool3d,
    AvgPool1d,
    AvgPool2d,
    AvgPool3d,
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    BCELoss,
    BCEWithLogitsLoss,
    Bilinear,
    Conv1d,
    Conv2d,
    Conv3d,
    ConvTranspose1d,
    ConvTranspose2d,
    ConvTranspose3d,
    CrossEntropyLoss,
    Dropout,
    Dropout1d,
    Dropout2d,
    Dropout3d,
    Embedding,
    Flatten,
    GroupNorm,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    HuberLoss,
    Identity,
    KLDivLoss,
    L1Loss,
    LayerNorm,
    LeakyReLU,
    Linear,
    LogSigmoid,
    LogSoftmax,
    MaxPool1d,
    MaxPool2d,
    MaxPool3d,
    Mish,
    Module,
    ModuleDict,
    ModuleList,
    MSELoss,
    MultiheadAttention,
    NLLLoss,
    NonDynamicallyQuantizableLinear,
    ParameterDict,
    ParameterList,
    ReLU,
    ReLU6,
    RMSNorm,
    RNNBase,
    Sequential,
    Sigmoid,
    SiLU,
    SmoothL1Loss,
    Softmax,
    Softmin,
    Softplus,
    Softsign,
    Tanh,
    Tanhshrink,
    TransformerEncoder,
    TransformerEncoderLayer,
    Unflatten,
)
from .parameter import Parameter

__all__ = [
    "CELU", "ELU", "GELU", "GLU", "GRU", "LSTM", "RNN", "SELU",
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
    "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "Bilinear",
    "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "CrossEntropyLoss",
    "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "Embedding", "Flatten", "GroupNorm",
    "Hardsigmoid", "Hardswish", "Hardtanh", "HuberLoss", "Identity", "KLDivLoss", "L1Loss", "LayerNorm",
    "LeakyReLU", "Linear", "LogSigmoid", "LogSoftmax", "MSELoss", "MaxPool1d", "MaxPool2d", "MaxPool3d", "Mish",
    "Module", "ModuleDict", "ModuleList", "MultiheadAttention", "NLLLoss", "NonDynamicallyQuantizableLinear",
    "Parameter", "ParameterDict", "ParameterList", "RMSNorm", "RNNBase", "ReLU", "ReLU6", "Sequential", "SiLU", "Sigmoid",
    "SmoothL1Loss", "Softmax", "Softmin", "Softplus", "Softsign", "Tanh", "Tanhshrink",
    "TransformerEncoder", "TransformerEncoderLayer", "Unflatten",
    "functional", "init", "parallel", "utils",
]  # fmt: skip
