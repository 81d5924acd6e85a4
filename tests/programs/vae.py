"""A variational autoencoder on 8x8 images of horizontal and vertical bars.

An encoder giving a mean and a log-variance, the reparameterization trick (the noise comes from the
program's NumPy generator, so runs are repeatable in any framework), a KL term in closed form, a
Bernoulli reconstruction loss through ``binary_cross_entropy_with_logits``, a ``LinearLR`` warm-up
handing over to ``ExponentialLR`` through ``SequentialLR``, evaluation of the ELBO under
``torch.no_grad()`` and sampling from the prior.
"""

import numpy as np

COMPARE = {"losses": (2e-3, 1e-4), "kl": (2e-3, 1e-4), "eval_elbo": (2e-3, 1e-4), "reconstruction": (5e-3, 1e-4)}


def make_strokes(count, rng):
    """8x8 binary images of a horizontal or a vertical bar at a random offset, with pixel noise."""
    images = np.zeros((count, 8, 8), dtype=np.float32)
    for row in range(count):
        offset = rng.integers(1, 7)
        if rng.random() < 0.5:
            images[row, offset - 1 : offset + 1, 1:7] = 1.0
        else:
            images[row, 1:7, offset - 1 : offset + 1] = 1.0
    flips = rng.random(images.shape) < 0.03
    return np.where(flips, 1.0 - images, images).reshape(count, 64)


def main(torch, steps=12, init_weights=None):
    nn = torch.nn
    F = torch.nn.functional

    class VAE(nn.Module):
        def __init__(self, latent=4, hidden=48):
            super().__init__()
            self.encoder = nn.Sequential(nn.Linear(64, hidden), nn.Tanh())
            self.mu = nn.Linear(hidden, latent)
            self.logvar = nn.Linear(hidden, latent)
            self.decoder = nn.Sequential(nn.Linear(latent, hidden), nn.Tanh(), nn.Linear(hidden, 64))

        def encode(self, x):
            h = self.encoder(x)
            return self.mu(h), self.logvar(h)

        def reparameterize(self, mu, logvar, eps):
            std = torch.exp(0.5 * logvar)
            return mu + eps * std

        def forward(self, x, eps):
            mu, logvar = self.encode(x)
            return self.decoder(self.reparameterize(mu, logvar, eps)), mu, logvar

    def loss_terms(logits, x, mu, logvar):
        reconstruction = F.binary_cross_entropy_with_logits(logits, x, reduction="sum") / x.size(0)
        kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.size(0)
        return reconstruction, kl

    rng = np.random.default_rng(0)
    train = torch.utils.data.TensorDataset(torch.from_numpy(make_strokes(384, rng)))
    loader = torch.utils.data.DataLoader(train, batch_size=64)
    test_images = torch.from_numpy(make_strokes(128, np.random.default_rng(1)))

    model = VAE()
    if init_weights is not None:
        init_weights(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.2, total_iters=3)
    decay = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
    scheduler = torch.optim.lr_scheduler.SequentialLR(optimizer, [warmup, decay], milestones=[3])
    noise = np.random.default_rng(2)

    losses, kls = [], []
    for epoch in range(steps):
        model.train()
        total, total_kl = 0.0, 0.0
        for (x,) in loader:
            eps = torch.from_numpy(noise.standard_normal((x.size(0), 4)).astype(np.float32))
            logits, mu, logvar = model(x, eps)
            reconstruction, kl = loss_terms(logits, x, mu, logvar)
            loss = reconstruction + kl
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * x.size(0)
            total_kl += kl.item() * x.size(0)
        scheduler.step()
        losses.append(total / len(train))
        kls.append(total_kl / len(train))
        print(f"epoch {epoch}: loss {losses[-1]:.3f} (KL {kls[-1]:.3f})")

    model.eval()
    with torch.no_grad():
        mu, logvar = model.encode(test_images)
        logits = model.decoder(mu)  # the mean code, no noise
        reconstruction, kl = loss_terms(logits, test_images, mu, logvar)
        eval_elbo = -(reconstruction + kl).item()
        pixels = torch.sigmoid(logits)
        samples = torch.sigmoid(model.decoder(torch.randn(16, 4)))
    assert not pixels.requires_grad and samples.shape == (16, 64)
    assert ((samples >= 0) & (samples <= 1)).all().item()
    error = (pixels.round() != test_images).float().mean().item()
    print(f"test ELBO {eval_elbo:.3f}, pixel error {error:.2%}")
    return {"losses": losses, "kl": kls, "eval_elbo": eval_elbo, "reconstruction": pixels.numpy()}
