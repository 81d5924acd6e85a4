"""A 1-D convolutional denoiser that also predicts its own uncertainty.

Noisy sine mixtures go through ``Conv1d`` layers with ``ReflectionPad1d`` and ``PReLU``, a strided
downsampling, an ``nn.Upsample(mode="linear")`` back to full length and two heads: the clean signal
and a per-sample variance through ``Softplus``, trained with ``GaussianNLLLoss`` (the noise level
varies along each signal). Adagrad, ``StepLR``.
"""

import math

import numpy as np

COMPARE = {"losses": (2e-3, 1e-5), "mse": (2e-3, 1e-6), "variance_profile": (5e-3, 1e-5)}

LENGTH = 64


def make_signals(count, rng):
    """Sums of two sines; the noise grows from the left end of each signal to the right."""
    t = np.linspace(0.0, 1.0, LENGTH, dtype=np.float32)
    frequencies = rng.uniform(1.0, 4.0, (count, 2, 1))
    phases = rng.uniform(0.0, 2 * math.pi, (count, 2, 1))
    clean = np.sin(2 * math.pi * frequencies * t + phases).sum(axis=1)
    noise_level = 0.05 + 0.5 * t
    noisy = clean + noise_level * rng.standard_normal(clean.shape)
    return noisy[:, None].astype(np.float32), clean[:, None].astype(np.float32)


def main(torch, steps=8, init_weights=None):
    nn = torch.nn

    def conv_block(cin, cout, stride=1):
        return nn.Sequential(nn.ReflectionPad1d(2), nn.Conv1d(cin, cout, 5, stride=stride), nn.PReLU(cout))

    class Denoiser(nn.Module):
        def __init__(self, width=12):
            super().__init__()
            self.encode = nn.Sequential(conv_block(1, width), conv_block(width, width, stride=2), conv_block(width, width))
            self.upsample = nn.Upsample(scale_factor=2, mode="linear", align_corners=False)
            self.decode = conv_block(width + 1, width)
            self.mean = nn.Conv1d(width, 1, 1)
            self.variance = nn.Sequential(nn.Conv1d(width, 1, 1), nn.Softplus())

        def forward(self, x):
            h = self.upsample(self.encode(x))
            h = self.decode(torch.cat([h, x], dim=1))
            return self.mean(h), self.variance(h) + 1e-2

    rng = np.random.default_rng(0)
    noisy, clean = make_signals(192, rng)
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.from_numpy(noisy), torch.from_numpy(clean)), batch_size=32
    )
    test_noisy, test_clean = (torch.from_numpy(a) for a in make_signals(64, np.random.default_rng(1)))

    model = Denoiser()
    if init_weights is not None:
        init_weights(model)
    criterion = nn.GaussianNLLLoss()
    optimizer = torch.optim.Adagrad(model.parameters(), lr=0.01)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5)

    losses = []
    for epoch in range(steps):
        model.train()
        total = 0.0
        for x, target in loader:
            mean, variance = model(x)
            loss = criterion(mean, target, variance)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * x.size(0)
        scheduler.step()
        losses.append(total / len(loader.dataset))
        print(f"epoch {epoch}: Gaussian NLL {losses[-1]:.4f}")

    model.eval()
    with torch.no_grad():
        mean, variance = model(test_noisy)
    mse = nn.functional.mse_loss(mean, test_clean).item()
    baseline = nn.functional.mse_loss(test_noisy, test_clean).item()
    profile = variance.mean(dim=(0, 1))
    print(
        f"test MSE {mse:.4f} (noisy input: {baseline:.4f}); variance left {profile[:8].mean().item():.4f}, right {profile[-8:].mean().item():.4f}"
    )
    assert mean.shape == test_clean.shape and (variance > 0).all()
    assert mse < baseline, "the denoiser must beat its noisy input"
    return {"losses": losses, "mse": mse, "variance_profile": profile.numpy()}
