"""``nothanks_v0``: the versioned PettingZoo entry point, in the style of ``pettingzoo.classic.connect_four_v3``.

>>> from nothanks_env import nothanks_v0
>>> e = nothanks_v0.env(num_players=5)
>>> e.reset(seed=0)
>>> e.agents
['player_0', 'player_1', 'player_2', 'player_3', 'player_4']
"""

from nothanks_env.env import PASS, TAKE, env, raw_env

__all__ = ["PASS", "TAKE", "env", "raw_env"]
