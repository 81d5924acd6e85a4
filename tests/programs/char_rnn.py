"""A character-level LSTM language model trained with truncated back-propagation through time.

The hidden state is carried across chunks and detached, gradients are clipped with
``clip_grad_norm_``, the optimizer is RMSprop, and text is generated greedily and by sampling
from the softmax with ``torch.multinomial`` and a seeded ``torch.Generator``.
"""

COMPARE = {"losses": (3e-3, 1e-5), "grad_norms": (3e-3, 1e-5), "greedy": (0.0, 0.0)}

TEXT = "the quick brown fox jumps over the lazy dog. " * 6 + "a lazy dog sleeps; the fox runs. " * 6


def main(torch, steps=20, init_weights=None):
    nn = torch.nn
    F = torch.nn.functional

    chars = sorted(set(TEXT))
    to_index = {c: i for i, c in enumerate(chars)}
    data = torch.tensor([to_index[c] for c in TEXT], dtype=torch.long)

    class CharRNN(nn.Module):
        def __init__(self, vocab, embed=16, hidden=48, layers=2):
            super().__init__()
            self.embed = nn.Embedding(vocab, embed)
            self.lstm = nn.LSTM(embed, hidden, num_layers=layers, batch_first=True)
            self.head = nn.Linear(hidden, vocab)

        def forward(self, tokens, state=None):
            output, state = self.lstm(self.embed(tokens), state)
            return self.head(output), state

    def batches(chunk=16, streams=8):
        """(input, target) chunks from ``streams`` parallel cuts of the text, as in the classic recipe."""
        usable = (data.numel() - 1) // streams * streams
        inputs = data[:usable].view(streams, -1)
        targets = data[1 : usable + 1].view(streams, -1)
        for start in range(0, inputs.size(1) - chunk + 1, chunk):
            yield inputs[:, start : start + chunk], targets[:, start : start + chunk]

    model = CharRNN(len(chars))
    if init_weights is not None:
        init_weights(model)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=5e-3)

    losses, grad_norms, step = [], [], 0
    while step < steps:
        state = None
        for inputs, targets in batches():
            if state is not None:
                state = tuple(s.detach() for s in state)  # truncate the graph at the chunk boundary
            logits, state = model(inputs, state)
            loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
            optimizer.zero_grad()
            loss.backward()
            grad_norms.append(float(nn.utils.clip_grad_norm_(model.parameters(), 0.5)))
            optimizer.step()
            losses.append(loss.item())
            step += 1
            if step == steps:
                break
    print(f"{step} steps: loss {losses[0]:.3f} -> {losses[-1]:.3f}")

    def generate(prompt, length, generator=None, temperature=1.0):
        model.eval()
        tokens = torch.tensor([[to_index[c] for c in prompt]])
        out = list(prompt)
        with torch.no_grad():
            logits, state = model(tokens)
            for _ in range(length):
                last = logits[0, -1] / temperature
                if generator is None:
                    choice = last.argmax().item()
                else:
                    choice = torch.multinomial(F.softmax(last, dim=-1), 1, generator=generator).item()
                out.append(chars[choice])
                logits, state = model(torch.tensor([[choice]]), state)
        return "".join(out)

    greedy = generate("the ", 16)
    generator = torch.Generator().manual_seed(0)
    sampled = generate("the ", 16, generator, temperature=0.8)
    print(f"greedy: {greedy!r}\nsampled: {sampled!r}")
    assert len(sampled) == 20 and set(sampled) <= set(chars)
    return {"losses": losses, "grad_norms": grad_norms, "greedy": [to_index[c] for c in greedy]}
