"""A small ResNet classifying synthetic stripe and checker images.

Residual blocks with ``BatchNorm2d`` and ``ReLU(inplace=True)``, a strided projection shortcut,
``AdaptiveAvgPool2d``, SGD with Nesterov momentum and weight decay, a cosine learning-rate schedule,
``train()``/``eval()`` modes and a checkpoint round trip through an in-memory file.
"""

import io

import numpy as np

COMPARE = {"losses": (2e-3, 1e-5), "eval_loss": (2e-3, 1e-5), "lrs": (1e-6, 0.0)}


def make_images(count, rng):
    """Three classes of 1x12x12 images: horizontal stripes, vertical stripes, a checkerboard."""
    rows, cols = np.mgrid[0:12, 0:12]
    patterns = [(rows // 2) % 2, (cols // 2) % 2, ((rows // 3) + (cols // 3)) % 2]
    labels = rng.integers(0, 3, count)
    images = np.stack([patterns[k] for k in labels]).astype(np.float32)
    images += 0.6 * rng.standard_normal(images.shape).astype(np.float32)
    return images[:, None], labels


def main(torch, steps=4, init_weights=None):
    nn = torch.nn
    F = torch.nn.functional

    class ImageDataset(torch.utils.data.Dataset):
        def __init__(self, count, seed):
            self.images, self.labels = make_images(count, np.random.default_rng(seed))

        def __len__(self):
            return len(self.labels)

        def __getitem__(self, index):
            return torch.from_numpy(self.images[index]), int(self.labels[index])

    class BasicBlock(nn.Module):
        def __init__(self, in_channels, out_channels, stride=1):
            super().__init__()
            self.conv1 = nn.Conv2d(in_channels, out_channels, 3, stride=stride, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(out_channels)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(out_channels, out_channels, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(out_channels)
            self.shortcut = nn.Identity()
            if stride != 1 or in_channels != out_channels:
                self.shortcut = nn.Sequential(
                    nn.Conv2d(in_channels, out_channels, 1, stride=stride, bias=False), nn.BatchNorm2d(out_channels)
                )

        def forward(self, x):
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            out += self.shortcut(x)
            return self.relu(out)

    class ResNet(nn.Module):
        def __init__(self, num_classes=3, width=8):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(1, width, 3, padding=1, bias=False), nn.BatchNorm2d(width), nn.ReLU(inplace=True))
            self.layer1 = BasicBlock(width, width)
            self.layer2 = BasicBlock(width, 2 * width, stride=2)
            self.pool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(2 * width, num_classes)

        def forward(self, x):
            x = self.layer2(self.layer1(self.stem(x)))
            return self.fc(torch.flatten(self.pool(x), 1))

    train_loader = torch.utils.data.DataLoader(ImageDataset(256, seed=0), batch_size=32)
    test_loader = torch.utils.data.DataLoader(ImageDataset(96, seed=1), batch_size=48)

    model = ResNet()
    if init_weights is not None:
        init_weights(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps)
    criterion = nn.CrossEntropyLoss()

    def evaluate(net):
        net.eval()
        total_loss, correct, seen = 0.0, 0, 0
        with torch.no_grad():
            for images, labels in test_loader:
                logits = net(images)
                total_loss += F.cross_entropy(logits, labels, reduction="sum").item()
                correct += (logits.argmax(dim=1) == labels).sum().item()
                seen += labels.numel()
        return total_loss / seen, correct / seen

    losses, lrs = [], []
    for epoch in range(steps):
        model.train()
        running = 0.0
        for images, labels in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(images), labels)
            loss.backward()
            optimizer.step()
            running += loss.item() * labels.size(0)
        losses.append(running / len(train_loader.dataset))
        lrs.append(scheduler.get_last_lr()[0])
        scheduler.step()
        eval_loss, accuracy = evaluate(model)
        print(f"epoch {epoch}: train loss {losses[-1]:.4f}, test loss {eval_loss:.4f}, accuracy {accuracy:.2%}")

    buffer = io.BytesIO()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, buffer)
    buffer.seek(0)
    restored = ResNet()
    checkpoint = torch.load(buffer)
    restored.load_state_dict(checkpoint["model"])
    assert evaluate(restored) == (eval_loss, accuracy), "the restored model must evaluate as the saved one"
    assert int(restored.layer1.bn1.num_batches_tracked) == steps * len(train_loader)
    return {"losses": losses, "eval_loss": eval_loss, "accuracy": accuracy, "lrs": lrs}
