"""Regression of a 1-D signal with random Fourier features and a loss in the frequency domain.

The inputs are lifted to ``[sin(2 pi B x), cos(2 pi B x)]`` with a fixed random matrix ``B`` kept as
a buffer; the loss adds to the pointwise MSE the distance between the magnitude spectra of the
prediction and the target (``torch.fft.rfft`` along the sampled grid); Adam with a ``StepLR``.
"""

import math

import numpy as np

COMPARE = {"losses": (2e-3, 1e-5), "spectral": (2e-3, 1e-5), "prediction": (5e-3, 1e-4)}


def main(torch, steps=80, init_weights=None):
    nn = torch.nn
    F = torch.nn.functional

    class FourierFeatures(nn.Module):
        def __init__(self, frequencies):
            super().__init__()
            self.register_buffer("B", frequencies)

        def forward(self, x):
            projected = 2 * math.pi * x @ self.B
            return torch.cat([torch.sin(projected), torch.cos(projected)], dim=-1)

    rng = np.random.default_rng(0)
    grid = np.linspace(0.0, 1.0, 128, endpoint=False, dtype=np.float32)
    signal = np.sin(2 * np.pi * 3 * grid) + 0.5 * np.sign(np.sin(2 * np.pi * 7 * grid)) + 0.05 * rng.standard_normal(128)
    x = torch.from_numpy(grid).unsqueeze(1)
    target = torch.from_numpy(signal.astype(np.float32))

    model = nn.Sequential(
        FourierFeatures(torch.from_numpy((4.0 * rng.standard_normal((1, 16))).astype(np.float32))),
        nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1),
    )  # fmt: skip
    if init_weights is not None:
        init_weights(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.5)
    target_spectrum = torch.fft.rfft(target).abs()

    losses, spectral = [], []
    for step in range(steps):
        prediction = model(x).squeeze(1)
        spectrum_error = F.l1_loss(torch.fft.rfft(prediction).abs(), target_spectrum) / len(grid)
        loss = F.mse_loss(prediction, target) + spectrum_error
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
        spectral.append(spectrum_error.item())
        if step % 20 == 0:
            print(f"step {step}: loss {loss.item():.5f} (spectral {spectrum_error.item():.5f})")

    with torch.no_grad():
        prediction = model(x).squeeze(1)
        dominant = torch.fft.rfftfreq(len(grid), d=1.0 / len(grid))[torch.fft.rfft(prediction).abs().argmax()].item()
    print(f"dominant frequency of the fit: {dominant}")
    assert dominant == 3.0, "the fit must keep the signal's strongest frequency"
    return {"losses": losses, "spectral": spectral, "prediction": prediction.numpy()}
