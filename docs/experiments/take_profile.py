"""How often a policy takes, by the cost of the card, against two copies of one opponent (3 players).

Each policy sits in seat 0 of the same ``--games`` deals (seed ``--seed``) against two copies of
``--opponent``. It prints the approximate win rate (seat 0 only, not seat-rotated: use
``training.evaluate`` for the real figure), the mean end-of-deal chips and card points, and the share of
the policy's decisions with chips in hand that were takes, by cost = Δ(c) − pot (penalty points: the
change in its penalty if it took the card).

With ``--record-from SPEC`` (a network with the behaviour inputs only), it also replays the network's own
decisions against ``--opponent`` with each observation's record of the deal (the ``behaviour`` inputs)
swapped for one drawn from games against two copies of SPEC, and prints the share of decisions that change:
how much the network's play depends on what the opponents have done.

    python docs/experiments/take_profile.py --opponent threshold:T=2 --policy ppo-3p heuristic
    python docs/experiments/take_profile.py --opponent threshold:T=2 --policy ppo-3p --record-from utility
"""

from __future__ import annotations

import argparse

import numpy as np

from nothanks_env import encoding as enc
from nothanks_env.baselines.simple import own_take_delta
from nothanks_env.game import GameConfig
from nothanks_env.specs import load_policy
from nothanks_env.vector import VectorGame

BUCKETS = [(-99, -1), (0, 2), (3, 5), (6, 8), (9, 11), (12, 15), (16, 20), (21, 99)]


def play_seat0(policy, opponent, games: int, seed: int, record) -> VectorGame:
    """Play ``games`` deals with ``policy`` in seat 0 and two copies of ``opponent``; call
    ``record(view, actions)`` on each batch of the policy's decisions; return the finished games."""
    vg = VectorGame(GameConfig(num_players=3), games, seed=seed)
    vg.record_behaviour = True
    while not vg.done.all():
        live = np.flatnonzero(~vg.done)
        mine = vg.seat[live] == 0
        actions = np.zeros(games, dtype=np.int64)
        if mine.any():
            view = vg.view(live[mine])
            actions[live[mine]] = policy.act_batch(view)
            record(view, actions[live[mine]])
        if (~mine).any():
            actions[live[~mine]] = opponent.act_batch(vg.view(live[~mine]))
        vg.step(actions, which=~vg.done)
    return vg


def profile(policy_spec: str, opponent_spec: str, games: int, seed: int) -> None:
    """Play and print one policy's profile (see the module docstring)."""
    pol = load_policy(policy_spec, num_players=3, seed=seed)
    opp = load_policy(opponent_spec, num_players=3, seed=seed + 1)
    rows: list[tuple[np.ndarray, ...]] = []
    vg = play_seat0(
        pol, opp, games, seed, lambda v, a: rows.append((own_take_delta(v) - v.pot, a, v.own_chips, v.cards_in_deck))
    )
    pen = vg.penalties()
    best_other = pen[:, 1:].min(axis=1)
    win = (pen[:, 0] < best_other).mean() + 0.5 * (pen[:, 0] == best_other).mean()
    cost, take, chip, left = (np.concatenate(col) for col in zip(*rows))
    print(
        f"{policy_spec} vs 2x {opponent_spec}, {games} deals in seat 0: win ~{win:.3f}; end of deal: chips "
        f"{vg.chips[:, 0].mean():.1f} (opponents {vg.chips[:, 1:].mean():.1f}), card points "
        f"{vg.card_points[:, 0].mean():.1f} ({vg.card_points[:, 1:].mean():.1f})"
    )
    print("  cost      decisions/deal  P(take)  P(take), first 8 cards")
    for lo, hi in BUCKETS:
        m = (cost >= lo) & (cost <= hi) & (chip > 0)
        early = m & (left >= 16)
        print(
            f"  {lo:>3}..{hi:<3}  {m.sum() / games:14.2f}  {take[m].mean():7.3f}  "
            f"{take[early].mean() if early.any() else float('nan'):7.3f}"
        )


def observations(pol, opponent_spec: str, games: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The network's encoded observations float32 (N, 445) and masks int8 (N, 2) in seat 0 of ``games`` deals."""
    opp = load_policy(opponent_spec, num_players=3, seed=seed + 1)
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []

    def record(view, actions) -> None:
        obs.append(enc.encode_batch(view, pol.chip_memory, pol.behaviour))
        masks.append(view.action_mask())

    play_seat0(pol, opp, games, seed, record)
    return np.concatenate(obs), np.concatenate(masks)


def record_dependence(policy_spec: str, opponent_spec: str, other_spec: str, games: int, seed: int) -> None:
    """Print the share of the network's free decisions that change when its behaviour inputs are swapped."""
    pol = load_policy(policy_spec, num_players=3)
    if not getattr(pol, "behaviour", False):
        print(f"{policy_spec}: no behaviour inputs, so --record-from does not apply")
        return
    record = slice(enc.OBS_SIZE, enc.OBS_SIZE + enc.BEHAVIOUR_SIZE)
    obs, masks = observations(pol, opponent_spec, games, seed)
    other, _ = observations(pol, other_spec, games, seed + 2)
    free = masks.all(axis=1)
    played = pol.act_observation(obs, masks)
    swapped = obs.copy()
    swapped[:, record] = other[np.random.default_rng(seed).integers(0, len(other), len(obs)), record]
    zeroed = obs.copy()
    zeroed[:, record] = 0
    print(
        f"{policy_spec} vs 2x {opponent_spec}: {free.sum()} decisions with chips in hand; changed with the record "
        f"from games against {other_spec}: {(pol.act_observation(swapped, masks) != played)[free].mean():.3f}; "
        f"with the record zeroed: {(pol.act_observation(zeroed, masks) != played)[free].mean():.3f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--policy", nargs="+", default=["ppo-3p", "heuristic"])
    ap.add_argument("--opponent", default="threshold:T=2")
    ap.add_argument("--games", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--record-from", metavar="SPEC", help="also measure how much the network's play depends on "
                    "its record of the opponents (see the module docstring)")  # fmt: skip
    args = ap.parse_args()
    for spec in args.policy:
        profile(spec, args.opponent, args.games, args.seed)
        if args.record_from:
            record_dependence(spec, args.opponent, args.record_from, args.games, args.seed)


if __name__ == "__main__":
    main()
