"""Proxies of a MuJoCo body for solvers coupled to it, and the masses that size the exchange.

- `coupling.spatial_mobility`: W = J M^-1 J^T of a body (`mobility`, `mobility0`, `mobility_many`).
- `coupling.masses`: `scalar_mass` (3 / trace W_tt), `axis_mass` (1 / lambda_max W_tt), `mobile_axis`.
- `coupling.proxies`: `ScalarProxy`, `TensorProxy`, `proxy()` and its environment switches.
- `coupling.exchange`: `interface_bound`, `stiffness_cap`, `strong_pair`, `exchange_mass`.

`equality=True` (mobility, mobility0, mobility_many, exchange_mass, proxy and both proxies) holds the
model's active equality constraints rigid: W_c, the Schur complement of W over MuJoCo's equality
rows; `equality="soft"` holds them as MuJoCo does, through their impedance `efc_R` (W_s, MuJoCo's
own answer to a force on a held body). Bad input is refused with a ValueError naming the argument: a model that is not an MjModel,
data of another model, a W that is not a finite symmetric positive semi-definite 3 x 3 or 6 x 6.

Installed as `pytest_physlaw.coupling` (pytest_physlaw/kit.py: one import name per process).
PYTEST_DONT_REWRITE: no asserts here; spares in-process pytester runs the "already imported" warning
(the plugin's distribution lists this package among its files).
"""

from pytest_physlaw.kit import claim

claim(__name__, __file__)  # one import name per process (pytest_physlaw/kit.py)

from .exchange import exchange_mass, interface_bound, stiffness_cap, strong_pair
from .masses import axis_mass, mobile_axis, scalar_mass, translation_block
from .spatial_mobility import equality_rows, forward_position, mobility, mobility0, mobility_many
from .proxies import (
    DEFAULT_KAPPA,
    KAPPA_ENV,
    TENSOR_ENV,
    ScalarProxy,
    TensorProxy,
    kappa_from_env,
    proxy,
    tensor_from_env,
)

__all__ = [
    "DEFAULT_KAPPA",
    "KAPPA_ENV",
    "TENSOR_ENV",
    "ScalarProxy",
    "TensorProxy",
    "axis_mass",
    "equality_rows",
    "exchange_mass",
    "forward_position",
    "interface_bound",
    "kappa_from_env",
    "mobile_axis",
    "mobility",
    "mobility0",
    "mobility_many",
    "proxy",
    "scalar_mass",
    "stiffness_cap",
    "strong_pair",
    "tensor_from_env",
    "translation_block",
]
