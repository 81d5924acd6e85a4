"""Knowledge distillation: a wide teacher MLP, then a small student trained on its softened outputs.

The teacher is frozen (``requires_grad_(False)``, ``eval()``, ``torch.no_grad()``); the student's
loss mixes ``KLDivLoss(reduction="batchmean")`` between temperature-softened distributions, scaled
by T^2, with the hard-label cross-entropy. SGD with momentum and ``MultiStepLR``.
"""

import numpy as np

COMPARE = {
    "teacher_losses": (2e-3, 1e-5),
    "losses": (2e-3, 1e-5),
    "kd_terms": (2e-3, 1e-5),
    "student_logits": (5e-3, 1e-4),
}


def make_spirals(count, rng, classes=3):
    """Points on three interleaved noisy spirals, with 6 extra nuisance features."""
    labels = rng.integers(0, classes, count)
    radius = rng.random(count)
    angle = 4.0 * radius + labels * (2 * np.pi / classes) + 0.2 * rng.standard_normal(count)
    points = np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
    features = np.concatenate([points, 0.3 * rng.standard_normal((count, 6))], axis=1)
    return features.astype(np.float32), labels


def main(torch, steps=10, init_weights=None, temperature=4.0, alpha=0.7):
    nn = torch.nn
    F = torch.nn.functional

    def mlp(width, depth):
        layers, size = [], 8
        for _ in range(depth):
            layers += [nn.Linear(size, width), nn.ReLU()]
            size = width
        return nn.Sequential(*layers, nn.Linear(size, 3))

    rng = np.random.default_rng(0)
    x, y = make_spirals(600, rng)
    dataset = torch.utils.data.TensorDataset(torch.from_numpy(x), torch.from_numpy(y))
    train, test = torch.utils.data.Subset(dataset, range(480)), torch.utils.data.Subset(dataset, range(480, 600))
    loader = torch.utils.data.DataLoader(train, batch_size=40)

    def accuracy(model):
        model.eval()
        inputs, labels = next(iter(torch.utils.data.DataLoader(test, batch_size=len(test))))
        with torch.no_grad():
            logits = model(inputs)
        return (logits.argmax(1) == labels).float().mean().item(), logits

    teacher = mlp(64, 3)
    if init_weights is not None:
        init_weights(teacher)
    teacher_optimizer = torch.optim.Adam(teacher.parameters(), lr=1e-2)
    teacher_losses = []
    for _ in range(steps):
        teacher.train()
        for inputs, labels in loader:
            loss = F.cross_entropy(teacher(inputs), labels)
            teacher_optimizer.zero_grad()
            loss.backward()
            teacher_optimizer.step()
        teacher_losses.append(loss.item())
    teacher_accuracy, _ = accuracy(teacher)
    print(f"teacher accuracy {teacher_accuracy:.2%}")

    teacher_optimizer.zero_grad()  # set_to_none: the frozen teacher must get no gradients from here on
    teacher.eval()
    teacher.requires_grad_(False)
    student = mlp(16, 1)
    if init_weights is not None:
        init_weights(student)
    optimizer = torch.optim.SGD(student.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[steps // 2, 3 * steps // 4], gamma=0.3)
    kl_div = nn.KLDivLoss(reduction="batchmean")
    losses, kd_terms = [], []
    for epoch in range(steps):
        student.train()
        for inputs, labels in loader:
            with torch.no_grad():
                soft_targets = F.softmax(teacher(inputs) / temperature, dim=1)
            logits = student(inputs)
            kd = kl_div(F.log_softmax(logits / temperature, dim=1), soft_targets) * temperature**2
            loss = alpha * kd + (1 - alpha) * F.cross_entropy(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
        losses.append(loss.item())
        kd_terms.append(kd.item())
        print(f"epoch {epoch}: loss {loss.item():.4f} (distillation {kd.item():.4f})")
    assert all(p.grad is None for p in teacher.parameters()), "the frozen teacher must get no gradients"
    student_accuracy, student_logits = accuracy(student)
    print(f"student accuracy {student_accuracy:.2%}")
    return {
        "teacher_losses": teacher_losses,
        "losses": losses,
        "kd_terms": kd_terms,
        "teacher_accuracy": teacher_accuracy,
        "student_accuracy": student_accuracy,
        "student_logits": student_logits.numpy(),
    }
