"""A classifier for imbalanced classes with the usual remedies.

``WeightedRandomSampler`` draws classes evenly, ``CrossEntropyLoss(label_smoothing=...)``, AdamW with
two parameter groups (no weight decay on biases and norm scales), ``OneCycleLR`` stepped every batch,
``BatchNorm1d`` and ``Dropout``, and per-class recall from a confusion matrix built with ``index_put_``.

The sampler and the dropout masks draw from each framework's own RNG, so under two frameworks the
runs differ; what they must share is the learning-rate schedule, the balance of the drawn classes
and the quality of the result.
"""

import numpy as np

# statistics, not trajectories: the sampler's draws differ between frameworks
COMPARE = {"lrs": (1e-6, 1e-9), "class_fractions": (0.0, 0.06), "balanced_accuracy": (0.0, 0.1)}


def make_imbalanced(count, rng, fractions=(0.8, 0.15, 0.05)):
    labels = rng.choice(len(fractions), size=count, p=fractions)
    centres = np.array([[0.0, 0.0, 0.0, 0.0], [1.5, 1.0, 0.0, 0.5], [0.0, -1.5, 1.5, 0.0]])
    features = centres[labels] + 0.7 * rng.standard_normal((count, 4))
    return features.astype(np.float32), labels


def main(torch, steps=6, init_weights=None):
    nn = torch.nn

    rng = np.random.default_rng(0)
    x, y = make_imbalanced(600, rng)
    test_x, test_y = make_imbalanced(300, np.random.default_rng(1))
    counts = np.bincount(y, minlength=3)
    sample_weights = torch.from_numpy(1.0 / counts[y])
    torch.manual_seed(0)
    sampler = torch.utils.data.WeightedRandomSampler(sample_weights, num_samples=len(y), replacement=True)
    dataset = torch.utils.data.TensorDataset(torch.from_numpy(x), torch.from_numpy(y))
    loader = torch.utils.data.DataLoader(dataset, batch_size=50, sampler=sampler)

    model = nn.Sequential(nn.Linear(4, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 3))
    if init_weights is not None:
        init_weights(model)
    decay, no_decay = [], []
    for parameter in model.parameters():
        (no_decay if parameter.ndim == 1 else decay).append(parameter)  # biases and norm scales
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}], lr=1e-2)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.05, epochs=steps, steps_per_epoch=len(loader))
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)

    losses, lrs, drawn = [], [], torch.zeros(3)
    for epoch in range(steps):
        model.train()
        total = 0.0
        for inputs, labels in loader:
            loss = criterion(model(inputs), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            lrs.append(scheduler.get_last_lr()[0])
            drawn += torch.nn.functional.one_hot(labels, 3).sum(0)
            total += loss.item()
        losses.append(total / len(loader))
        print(f"epoch {epoch}: loss {losses[-1]:.4f}, lr {lrs[-1]:.5f}")
    assert optimizer.param_groups[1]["weight_decay"] == 0.0 and len(optimizer.param_groups[1]["params"]) == 4

    model.eval()
    with torch.no_grad():
        predicted = model(torch.from_numpy(test_x)).argmax(1)
    truth = torch.from_numpy(test_y)
    confusion = torch.zeros(3, 3, dtype=torch.long)
    confusion.index_put_((truth, predicted), torch.ones_like(truth), accumulate=True)
    recall = confusion.diag().float() / confusion.sum(1).float()
    print(f"per-class recall {[round(r, 3) for r in recall.tolist()]}")
    assert confusion.sum().item() == len(test_y)
    return {
        "losses": losses,
        "lrs": lrs,
        "class_fractions": (drawn / drawn.sum()).numpy(),
        "balanced_accuracy": recall.mean().item(),
    }
