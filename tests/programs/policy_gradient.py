"""REINFORCE with a learned baseline on a small corridor world.

The agent starts at the left end of a corridor and is paid for reaching the right end quickly; the
policy samples actions from ``torch.distributions.Categorical``, returns are discounted and
normalized, a value head is the baseline (``smooth_l1_loss``), and the entropy bonus keeps the
policy exploring. Actions are drawn from the framework's RNG, so two frameworks follow different
episodes: what must agree is what the agent learns (the greedy policy's path and return).
"""

import numpy as np

COMPARE = {"greedy_return": (0.0, 1e-6), "greedy_steps": (0.0, 0.0)}

LENGTH, MAX_STEPS, GAMMA = 6, 14, 0.95


class Corridor:
    """Positions 0..LENGTH-1; action 0 steps left, 1 steps right; +1 at the right end, -0.05 a step."""

    def reset(self):
        self.position, self.steps = 0, 0
        return self.position

    def step(self, action):
        self.position = min(max(self.position + (1 if action == 1 else -1), 0), LENGTH - 1)
        self.steps += 1
        done = self.position == LENGTH - 1 or self.steps == MAX_STEPS
        reward = 1.0 if self.position == LENGTH - 1 else -0.05
        return self.position, reward, done


def main(torch, steps=12, init_weights=None, episodes_per_update=8):
    nn = torch.nn
    F = torch.nn.functional
    Categorical = torch.distributions.Categorical

    class ActorCritic(nn.Module):
        def __init__(self, hidden=24):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(LENGTH, hidden), nn.Tanh())
            self.policy = nn.Linear(hidden, 2)
            self.value = nn.Linear(hidden, 1)

        def forward(self, state):
            h = self.body(F.one_hot(torch.tensor(state), LENGTH).float())
            return self.policy(h), self.value(h).squeeze(-1)

    torch.manual_seed(0)
    env = Corridor()
    model = ActorCritic()
    if init_weights is not None:
        init_weights(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-2)

    losses, mean_returns = [], []
    for update in range(steps):
        log_probs, values, entropies, returns, totals = [], [], [], [], []
        for _ in range(episodes_per_update):
            state, done, rewards = env.reset(), False, []
            while not done:
                logits, value = model(state)
                dist = Categorical(logits=logits)
                action = dist.sample()
                log_probs.append(dist.log_prob(action))
                entropies.append(dist.entropy())
                values.append(value)
                state, reward, done = env.step(action.item())
                rewards.append(reward)
            discounted, running = [], 0.0
            for reward in reversed(rewards):
                running = reward + GAMMA * running
                discounted.insert(0, running)
            returns.extend(discounted)
            totals.append(sum(rewards))
        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + 1e-8)
        values, log_probs = torch.stack(values), torch.stack(log_probs)
        advantage = returns - values.detach()
        loss = -(log_probs * advantage).mean() + 0.5 * F.smooth_l1_loss(values, returns) - 0.01 * torch.stack(entropies).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(-float(np.mean(totals)))  # the quantity that must go down: minus the mean return
        mean_returns.append(float(np.mean(totals)))
        if update % 5 == 0:
            print(f"update {update}: mean return {mean_returns[-1]:.3f}, loss {loss.item():.4f}")

    with torch.no_grad():
        state, done, greedy_return, greedy_steps = env.reset(), False, 0.0, 0
        while not done:
            logits, _ = model(state)
            state, reward, done = env.step(logits.argmax().item())
            greedy_return += reward
            greedy_steps += 1
    print(f"greedy policy: {greedy_steps} steps, return {greedy_return:.2f}")
    assert greedy_steps == LENGTH - 1, "the greedy policy must walk straight to the goal"
    return {"losses": losses, "mean_returns": mean_returns, "greedy_return": greedy_return, "greedy_steps": greedy_steps}
