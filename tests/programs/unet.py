"""A small U-Net segmenting discs and squares out of noisy 16x16 images.

Two encoder stages with ``MaxPool2d``, a decoder that upsamples once with ``ConvTranspose2d`` and
once with ``F.interpolate(mode="bilinear")``, skip connections through ``torch.cat``, GroupNorm,
``BCEWithLogitsLoss(pos_weight=...)`` plus a soft Dice loss, AdamW and an IoU metric.
"""

import numpy as np

# Adam on this net amplifies float32 rounding (torch against itself with another convolution algorithm
# drifts by 0.08 in the final probabilities): the first epoch is compared closely, the end loosely.
COMPARE = {"first_epoch": (1e-5, 1e-6), "losses": (2e-2, 1e-4), "iou": (0.0, 0.05), "probabilities": (0.0, 0.1)}


def make_scenes(count, rng, size=16):
    """Noisy images holding one disc or square, and the masks of the shape."""
    rows, cols = np.mgrid[0:size, 0:size]
    images = np.zeros((count, 1, size, size), dtype=np.float32)
    masks = np.zeros_like(images)
    for i in range(count):
        cy, cx = rng.integers(4, size - 4, 2)
        r = rng.integers(2, 5)
        if rng.random() < 0.5:
            mask = (rows - cy) ** 2 + (cols - cx) ** 2 <= r * r
        else:
            mask = (abs(rows - cy) <= r) & (abs(cols - cx) <= r)
        masks[i, 0] = mask
        images[i, 0] = mask * 1.0 + 0.5 * rng.standard_normal((size, size))
    return images, masks


def main(torch, steps=4, init_weights=None):
    nn = torch.nn
    F = torch.nn.functional

    def double_conv(cin, cout):
        return nn.Sequential(
            nn.Conv2d(cin, cout, 3, padding=1), nn.GroupNorm(2, cout), nn.ReLU(),
            nn.Conv2d(cout, cout, 3, padding=1), nn.ReLU(),
        )  # fmt: skip

    class UNet(nn.Module):
        def __init__(self, width=8):
            super().__init__()
            self.down1 = double_conv(1, width)
            self.down2 = double_conv(width, 2 * width)
            self.bottom = double_conv(2 * width, 4 * width)
            self.pool = nn.MaxPool2d(2)
            self.up2 = nn.ConvTranspose2d(4 * width, 2 * width, kernel_size=2, stride=2)
            self.dec2 = double_conv(4 * width, 2 * width)
            self.reduce1 = nn.Conv2d(2 * width, width, 1)
            self.dec1 = double_conv(2 * width, width)
            self.head = nn.Conv2d(width, 1, 1)

        def forward(self, x):
            skip1 = self.down1(x)
            skip2 = self.down2(self.pool(skip1))
            x = self.bottom(self.pool(skip2))
            x = self.dec2(torch.cat([self.up2(x), skip2], dim=1))
            x = F.interpolate(self.reduce1(x), scale_factor=2, mode="bilinear", align_corners=False)
            x = self.dec1(torch.cat([x, skip1], dim=1))
            return self.head(x)

    def dice_loss(logits, target, eps=1.0):
        probabilities = torch.sigmoid(logits)
        overlap = (probabilities * target).sum(dim=(1, 2, 3))
        total = probabilities.sum(dim=(1, 2, 3)) + target.sum(dim=(1, 2, 3))
        return (1 - (2 * overlap + eps) / (total + eps)).mean()

    rng = np.random.default_rng(0)
    images, masks = make_scenes(128, rng)
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.from_numpy(images), torch.from_numpy(masks)), batch_size=16
    )
    test_images, test_masks = (torch.from_numpy(a) for a in make_scenes(32, np.random.default_rng(1)))

    model = UNet()
    if init_weights is not None:
        init_weights(model)
    foreground = masks.mean()
    criterion = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([(1 - foreground) / foreground]))
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-2)

    losses, first_epoch = [], []
    for epoch in range(steps):
        model.train()
        total = 0.0
        for x, target in loader:
            logits = model(x)
            loss = criterion(logits, target) + dice_loss(logits, target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item()
            if epoch == 0:
                first_epoch.append(loss.item())
        losses.append(total / len(loader))
        print(f"epoch {epoch}: loss {losses[-1]:.4f}")

    model.eval()
    with torch.inference_mode():
        logits = model(test_images)
    assert logits.shape == test_masks.shape
    predicted = logits > 0
    truth = test_masks.bool()
    iou = ((predicted & truth).sum() / (predicted | truth).sum()).item()
    print(f"test IoU {iou:.3f}")
    return {"first_epoch": first_epoch, "losses": losses, "iou": iou, "probabilities": torch.sigmoid(logits).numpy()}
