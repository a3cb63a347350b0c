"""`pytest-physlaw advise`: the cheapest settings that keep a robot's physics, measured (docs/advise.md).

One module an idea: `setting` (the `<option>` choices), `observe` (the runs a setting is measured by), `distance`
(the physics error against the reference, and the tolerance), `planner` (the reference, then the sweep planned by
measuring), `cost` (time per simulated second, interleaved), `advice` (the front and the recommendation),
`report` and `plot` (what is printed and written), `verify` (the pack's laws on the recommendation), `command`
(the CLI). Nothing here is imported by the plugin at import time: it needs MuJoCo.
"""
