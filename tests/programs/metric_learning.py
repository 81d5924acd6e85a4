"""Metric learning: an embedding network trained with a triplet loss, evaluated by nearest-neighbour retrieval.

Triplets are mined from the labels with the program's NumPy generator; the embeddings are
L2-normalized with ``F.normalize``; ``nn.TripletMarginLoss`` is the objective and the mean cosine
similarity of positive pairs is tracked; retrieval uses ``torch.cdist`` and ``topk`` for recall@1.
"""

import numpy as np

COMPARE = {"losses": (2e-3, 1e-5), "positive_cosine": (2e-3, 1e-5), "recall_at_1": (0.0, 0.0), "distances": (5e-3, 1e-4)}


def make_clusters(count, rng, classes=6, dim=12):
    """Points around ``classes`` random centres, with a shared random linear distortion."""
    centres = rng.standard_normal((classes, dim)) * 1.2
    labels = rng.integers(0, classes, count)
    mixing = np.eye(dim) + 0.5 * rng.standard_normal((dim, dim))
    points = (centres[labels] + rng.standard_normal((count, dim))) @ mixing
    return points.astype(np.float32), labels


def mine_triplets(labels, rng):
    """For each anchor, a random positive of its class and a random negative of another class."""
    positives = np.empty_like(labels)
    negatives = np.empty_like(labels)
    for i, label in enumerate(labels):
        same = np.flatnonzero((labels == label) & (np.arange(len(labels)) != i))
        positives[i] = rng.choice(same)
        negatives[i] = rng.choice(np.flatnonzero(labels != label))
    return positives, negatives


def main(torch, steps=8, init_weights=None):
    nn = torch.nn
    F = torch.nn.functional

    class Embedder(nn.Module):
        def __init__(self, dim=12, hidden=32, out=8):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(dim, hidden), nn.SiLU(), nn.Linear(hidden, out))

        def forward(self, x):
            return F.normalize(self.net(x), dim=-1)

    class TripletDataset(torch.utils.data.Dataset):
        def __init__(self, points, labels, rng):
            self.points = torch.from_numpy(points)
            self.positives, self.negatives = mine_triplets(labels, rng)

        def __len__(self):
            return len(self.points)

        def __getitem__(self, i):
            return self.points[i], self.points[self.positives[i]], self.points[self.negatives[i]]

    rng = np.random.default_rng(0)
    points, labels = make_clusters(480, rng)
    train_points, train_labels = points[:384], labels[:384]
    dataset = TripletDataset(train_points, train_labels, rng)
    loader = torch.utils.data.DataLoader(dataset, batch_size=32)

    model = Embedder()
    if init_weights is not None:
        init_weights(model)
    criterion = nn.TripletMarginLoss(margin=0.3)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)

    losses, positive_cosine = [], []
    for epoch in range(steps):
        model.train()
        total, cosine = 0.0, 0.0
        for anchor, positive, negative in loader:
            a, p, n = model(anchor), model(positive), model(negative)
            loss = criterion(a, p, n)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item()
            cosine += F.cosine_similarity(a, p).mean().item()
        losses.append(total / len(loader))
        positive_cosine.append(cosine / len(loader))
        print(f"epoch {epoch}: loss {losses[-1]:.4f}, positive cosine {positive_cosine[-1]:.3f}")

    model.eval()
    with torch.no_grad():
        gallery = model(torch.from_numpy(train_points))
        queries = model(torch.from_numpy(points[384:]))
        distances = torch.cdist(queries, gallery)
        nearest = distances.topk(1, dim=1, largest=False).indices.squeeze(1)
    recall_at_1 = (torch.from_numpy(train_labels)[nearest] == torch.from_numpy(labels[384:])).float().mean().item()
    print(f"recall@1 {recall_at_1:.2%}")
    return {"losses": losses, "positive_cosine": positive_cosine, "recall_at_1": recall_at_1, "distances": distances.numpy()}
