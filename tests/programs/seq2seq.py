"""A sequence-to-sequence model with attention that learns to reverse digit strings.

An encoder of ``nn.MultiheadAttention`` self-attention, a decoder with causal self-attention through
``F.scaled_dot_product_attention`` and cross-attention to the encoder, teacher forcing, padding
ignored by ``cross_entropy(ignore_index=...)``, a warm-up through ``LambdaLR``, gradient clipping and
greedy decoding under ``torch.no_grad()``; the usual device boilerplate around it.
"""

import numpy as np

COMPARE = {"losses": (2e-3, 1e-5), "grad_norms": (2e-3, 1e-5), "decoded": (0.0, 0.0)}

PAD, BOS, EOS = 0, 1, 2
DIGITS = 8  # tokens 3..10
VOCAB = 3 + DIGITS
MAX_LEN = 6


def make_pairs(count, rng):
    """Source strings of 2..MAX_LEN digits and their reversals, padded to a common length."""
    sources = np.full((count, MAX_LEN), PAD, dtype=np.int64)
    targets = np.full((count, MAX_LEN + 2), PAD, dtype=np.int64)
    for row in range(count):
        length = rng.integers(2, MAX_LEN + 1)
        digits = rng.integers(3, VOCAB, length)
        sources[row, :length] = digits
        targets[row, 0] = BOS
        targets[row, 1 : length + 1] = digits[::-1]
        targets[row, length + 1] = EOS
    return sources, targets


def main(torch, steps=40, init_weights=None):
    nn = torch.nn
    F = torch.nn.functional

    class Encoder(nn.Module):
        def __init__(self, dim, heads):
            super().__init__()
            self.embed = nn.Embedding(VOCAB, dim, padding_idx=PAD)
            self.position = nn.Parameter(torch.zeros(1, MAX_LEN, dim))
            self.attention = nn.MultiheadAttention(dim, heads, batch_first=True)
            self.norm1 = nn.LayerNorm(dim)
            self.feed_forward = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
            self.norm2 = nn.LayerNorm(dim)

        def forward(self, source):
            padding = source == PAD
            x = self.embed(source) + self.position[:, : source.size(1)]
            attended, _ = self.attention(x, x, x, key_padding_mask=padding, need_weights=False)
            x = self.norm1(x + attended)
            return self.norm2(x + self.feed_forward(x)), padding

    class Decoder(nn.Module):
        def __init__(self, dim, heads):
            super().__init__()
            self.heads = heads
            self.embed = nn.Embedding(VOCAB, dim, padding_idx=PAD)
            self.position = nn.Parameter(torch.zeros(1, MAX_LEN + 2, dim))
            self.qkv = nn.Linear(dim, 3 * dim)
            self.out = nn.Linear(dim, dim)
            self.norm1 = nn.LayerNorm(dim)
            self.cross = nn.MultiheadAttention(dim, heads, batch_first=True)
            self.norm2 = nn.LayerNorm(dim)
            self.project = nn.Linear(dim, VOCAB)

        def self_attention(self, x):
            batch, length, dim = x.shape
            q, k, v = self.qkv(x).chunk(3, dim=-1)
            q, k, v = (t.view(batch, length, self.heads, dim // self.heads).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.out(y.transpose(1, 2).reshape(batch, length, dim))

        def forward(self, tokens, memory, memory_padding):
            x = self.embed(tokens) + self.position[:, : tokens.size(1)]
            x = self.norm1(x + self.self_attention(x))
            attended, _ = self.cross(x, memory, memory, key_padding_mask=memory_padding)
            return self.project(self.norm2(x + attended))

    class Seq2Seq(nn.Module):
        def __init__(self, dim=32, heads=4):
            super().__init__()
            self.encoder = Encoder(dim, heads)
            self.decoder = Decoder(dim, heads)

        def forward(self, source, target_in):
            memory, padding = self.encoder(source)
            return self.decoder(target_in, memory, padding)

        @torch.no_grad()
        def greedy(self, source):
            memory, padding = self.encoder(source)
            tokens = torch.full((source.size(0), 1), BOS, dtype=torch.long, device=source.device)
            for _ in range(MAX_LEN + 1):
                logits = self.decoder(tokens, memory, padding)
                tokens = torch.cat([tokens, logits[:, -1].argmax(-1, keepdim=True)], dim=1)
            return tokens[:, 1:]

    rng = np.random.default_rng(0)
    sources, targets = make_pairs(512, rng)
    dataset = torch.utils.data.TensorDataset(torch.from_numpy(sources), torch.from_numpy(targets))
    loader = torch.utils.data.DataLoader(dataset, batch_size=64, drop_last=True)

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.backends.cudnn.benchmark = True
    model = Seq2Seq()
    if init_weights is not None:
        init_weights(model)
    model = model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3, betas=(0.9, 0.98))
    warmup = 10
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / warmup))

    losses, grad_norms, step = [], [], 0
    model.train()
    while step < steps:
        for source, target in loader:
            source, target = source.to(device), target.to(device)
            target_in, target_out = target[:, :-1], target[:, 1:]  # teacher forcing
            logits = model(source, target_in)
            loss = F.cross_entropy(logits.reshape(-1, VOCAB), target_out.reshape(-1), ignore_index=PAD)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            grad_norms.append(nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0).item())
            optimizer.step()
            scheduler.step()
            losses.append(loss.item())
            step += 1
            if step % 20 == 0:
                print(f"step {step}: loss {loss.item():.4f}, lr {scheduler.get_last_lr()[0]:.2e}")
            if step == steps:
                break

    model.eval()
    test_sources, test_targets = make_pairs(64, np.random.default_rng(1))
    decoded = model.greedy(torch.from_numpy(test_sources).to(device)).cpu()
    expected = torch.from_numpy(test_targets[:, 1:])
    mask = expected != PAD
    token_accuracy = ((decoded == expected) & mask).sum().item() / mask.sum().item()
    print(f"token accuracy {token_accuracy:.2%}")
    assert decoded.shape == expected.shape and decoded.dtype == torch.int64
    return {"losses": losses, "grad_norms": grad_norms, "token_accuracy": token_accuracy, "decoded": decoded.numpy()}
