"""A two-layer graph convolutional network classifying the nodes of a stochastic block model.

Messages are gathered by edge index and summed into nodes with ``index_add_``, degrees are counted
with ``scatter_add_``, the symmetric normalization is computed once, training uses boolean node
masks, and ``ReduceLROnPlateau`` watches the validation loss.
"""

import numpy as np

COMPARE = {"losses": (2e-3, 1e-5), "val_losses": (2e-3, 1e-5), "embeddings": (5e-3, 1e-4)}


def make_graph(rng, nodes=150, communities=3, p_in=0.12, p_out=0.01):
    """Undirected edges of a stochastic block model (both directions listed) and noisy features."""
    labels = rng.integers(0, communities, nodes)
    same = labels[:, None] == labels[None, :]
    upper = np.triu(rng.random((nodes, nodes)) < np.where(same, p_in, p_out), k=1)
    src, dst = np.nonzero(upper)
    edges = np.stack([np.concatenate([src, dst]), np.concatenate([dst, src])])
    features = np.concatenate([np.eye(communities)[labels] * 0.4, rng.standard_normal((nodes, 5))], axis=1)
    features[:, :communities] += 0.8 * rng.standard_normal((nodes, communities))
    return edges.astype(np.int64), features.astype(np.float32), labels


def main(torch, steps=60, init_weights=None):
    nn = torch.nn
    F = torch.nn.functional

    class GraphConv(nn.Module):
        def __init__(self, in_features, out_features):
            super().__init__()
            self.linear = nn.Linear(in_features, out_features)

        def forward(self, x, edge_index, edge_weight):
            src, dst = edge_index
            messages = self.linear(x)[src] * edge_weight.unsqueeze(1)
            out = torch.zeros(x.size(0), messages.size(1), dtype=messages.dtype)
            return out.index_add_(0, dst, messages)

    class GCN(nn.Module):
        def __init__(self, in_features, hidden, classes):
            super().__init__()
            self.conv1 = GraphConv(in_features, hidden)
            self.conv2 = GraphConv(hidden, classes)

        def forward(self, x, edge_index, edge_weight):
            h = F.relu(self.conv1(x, edge_index, edge_weight))
            return self.conv2(h, edge_index, edge_weight), h

    rng = np.random.default_rng(0)
    edges, features, labels = make_graph(rng)
    nodes = features.shape[0]
    # self-loops, then the normalization 1 / sqrt(deg(src) deg(dst))
    loops = np.arange(nodes)
    edge_index = torch.from_numpy(np.concatenate([edges, np.stack([loops, loops])], axis=1))
    degree = torch.zeros(nodes).scatter_add_(0, edge_index[1], torch.ones(edge_index.size(1)))
    edge_weight = degree[edge_index[0]].rsqrt() * degree[edge_index[1]].rsqrt()
    x, y = torch.from_numpy(features), torch.from_numpy(labels)
    split = torch.from_numpy(np.random.default_rng(1).random(nodes))
    train_mask, val_mask, test_mask = split < 0.3, (split >= 0.3) & (split < 0.5), split >= 0.5

    model = GCN(features.shape[1], 16, 3)
    if init_weights is not None:
        init_weights(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.02, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=5)

    losses, val_losses = [], []
    for epoch in range(steps):
        model.train()
        optimizer.zero_grad()
        logits, _ = model(x, edge_index, edge_weight)
        loss = F.cross_entropy(logits[train_mask], y[train_mask])
        loss.backward()
        optimizer.step()
        model.eval()
        with torch.no_grad():
            logits, _ = model(x, edge_index, edge_weight)
            val_loss = F.cross_entropy(logits[val_mask], y[val_mask]).item()
        scheduler.step(val_loss)
        losses.append(loss.item())
        val_losses.append(val_loss)
        if epoch % 20 == 0:
            print(f"epoch {epoch}: loss {loss.item():.4f}, val {val_loss:.4f}, lr {optimizer.param_groups[0]['lr']:.4f}")

    with torch.no_grad():
        logits, hidden = model(x, edge_index, edge_weight)
    test_accuracy = (logits.argmax(1)[test_mask] == y[test_mask]).float().mean().item()
    print(f"test accuracy {test_accuracy:.2%}")
    assert hidden.shape == (nodes, 16) and (hidden >= 0).all()
    return {"losses": losses, "val_losses": val_losses, "test_accuracy": test_accuracy, "embeddings": hidden.numpy()}
